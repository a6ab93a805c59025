/** What other areas may use of orders: creating an order (of a completed draft or checkout), marking it paid, its representation, a customer's own orders and their return requests. */
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
export { createReturn } from './returns.service.js';
export { toCustomerReturnResource } from './returns.mappers.js';
export { applyRefundOutcome, refundNamed, settleRefund, type RefundOptions } from './refund-settlement.js';
