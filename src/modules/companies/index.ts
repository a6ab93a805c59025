/** What other areas may use of companies: the handlers. */
export { companyHandlers } from './companies.handlers.js';
