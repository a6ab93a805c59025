/** What other areas may use of orders: creating the order of a completed draft, its representation, and a customer's own orders. */
export { createOrderCompletingDraft, createOrderFromDraft, draftCompletedSummary } from './orders.service.js';
export { toOrderLineItem, toOrderResource } from './orders.mappers.js';
export { getCustomerOrder, listCustomerOrders } from './customer-orders.service.js';
