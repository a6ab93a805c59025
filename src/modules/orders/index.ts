/** What other areas may use of orders: creating an order (of a completed draft or checkout), marking it paid, its representation, and a customer's own orders. */
export {
  createOrder,
  createOrderCompletingDraft,
  createOrderFromDraft,
  draftCompletedSummary,
  markOrderPaid,
  type OrderOrigin,
} from './orders.service.js';
export {
  toOrderLineItem,
  toOrderResource,
  type OrderLineItemResource,
  type OrderPaymentResource,
} from './orders.mappers.js';
export type { NewOrder } from './orders.statements.js';
export { getCustomerOrder, listCustomerOrders } from './customer-orders.service.js';
export { applyRefundOutcome, refundNamed, settleRefund, type RefundOptions } from './refund-settlement.js';
