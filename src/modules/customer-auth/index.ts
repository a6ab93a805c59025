/** What other areas (and the HTTP pipeline) may use of customer auth. */
export { tokenIssuer } from './access-token.js';
export { authenticateAccessToken } from './sessions.service.js';
export { requireStoreDomain } from './store-domain.js';
