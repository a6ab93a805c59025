/** What other areas (and the HTTP pipeline) may use of customer auth. */
export { customerAuthHandlers } from './customer-auth.handlers.js';
export { tokenIssuer } from './access-token.js';
export { authenticateAccessToken } from './sessions.service.js';
export { purgeCustomerAuth } from './purge.js';
export { requireStoreDomain } from './store-domain.js';
