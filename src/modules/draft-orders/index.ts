/** What other areas may use of draft orders: the handlers. */
export { draftOrderHandlers } from './draft-orders.handlers.js';
