/** What other areas may use of orders: creating the order of a completed draft, and its representation. */
export { createOrderCompletingDraft, createOrderFromDraft, draftCompletedSummary } from './orders.service.js';
export { toOrderLineItem, toOrderResource } from './orders.mappers.js';
