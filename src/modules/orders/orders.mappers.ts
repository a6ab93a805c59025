import type { components } from '../../generated/openapi.js';
import type { DraftLineItem, Fulfillment, Order, Refund } from '../../generated/prisma/client.js';
import { toDateString } from '../../shared/payment-terms.js';

type Schemas = components['schemas'];
export type OrderResource = Schemas['Order'];
export type OrderLineItemResource = Schemas['OrderLineItem'];
export type FulfillmentResource = Schemas['Fulfillment'];
export type FulfillmentLineItem = Schemas['FulfillmentLineItem'];
export type RefundResource = Schemas['Refund'];
export type RefundLineItem = Schemas['RefundLineItem'];
export type OrderPaymentResource = Schemas['OrderPayment'];

/** A draft line item as the order keeps it (a copy that never changes). */
export function toOrderLineItem(item: DraftLineItem): OrderLineItemResource {
  const unitPrice = Number(item.unitPrice);
  return {
    variant_id: item.variantId,
    product_id: item.productId,
    title: item.title,
    variant_title: item.variantTitle,
    sku: item.sku,
    quantity: item.quantity,
    unit_price: unitPrice,
    total: item.quantity * unitPrice,
  };
}

/** An order as the API shows it. */
export function toOrderResource(order: Order): OrderResource {
  return {
    id: order.id,
    order_number: order.orderNumber,
    status: order.status as OrderResource['status'],
    financial_status: order.financialStatus as OrderResource['financial_status'],
    fulfillment_status: order.fulfillmentStatus as OrderResource['fulfillment_status'],
    cancel_reason: order.cancelReason as OrderResource['cancel_reason'],
    cancelled_at: order.cancelledAt?.toISOString() ?? null,
    customer_id: order.customerId,
    email: order.email,
    currency: order.currency,
    line_items: order.lineItems as OrderLineItemResource[],
    subtotal: Number(order.subtotal),
    tax: Number(order.tax),
    tax_data: order.taxData as OrderResource['tax_data'],
    shipping_cost: Number(order.shippingCost),
    discount: Number(order.discount),
    total: Number(order.total),
    total_refunded: Number(order.totalRefunded),
    shipping_address: order.shippingAddress as OrderResource['shipping_address'],
    billing_address: order.billingAddress as OrderResource['billing_address'],
    payment_terms: order.paymentTerms as OrderResource['payment_terms'],
    payment_due_date: toDateString(order.paymentDueDate),
    draft_order_id: order.draftOrderId,
    checkout_id: order.checkoutId,
    payments: order.payments as OrderPaymentResource[],
    paid_at: order.paidAt?.toISOString() ?? null,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}

/** A fulfilment as the API shows it. */
export function toFulfillmentResource(fulfillment: Fulfillment): FulfillmentResource {
  return {
    id: fulfillment.id,
    order_id: fulfillment.orderId,
    location_id: fulfillment.locationId,
    status: fulfillment.status as FulfillmentResource['status'],
    line_items: fulfillment.lineItems as FulfillmentLineItem[],
    tracking_company: fulfillment.trackingCompany,
    tracking_number: fulfillment.trackingNumber,
    tracking_url: fulfillment.trackingUrl,
    notify_customer: fulfillment.notifyCustomer,
    cancelled_at: fulfillment.cancelledAt?.toISOString() ?? null,
    created_at: fulfillment.createdAt.toISOString(),
    updated_at: fulfillment.updatedAt.toISOString(),
  };
}

/** A refund as the API shows it, in its order's currency. */
export function toRefundResource(refund: Refund, currency: string): RefundResource {
  return {
    id: refund.id,
    order_id: refund.orderId,
    amount: Number(refund.amount),
    currency,
    reason: refund.reason,
    line_items: refund.lineItems as RefundLineItem[],
    store_credit_amount: Number(refund.storeCreditAmount),
    created_at: refund.createdAt.toISOString(),
  };
}
