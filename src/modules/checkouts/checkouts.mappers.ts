import type { components } from '../../generated/openapi.js';
import type { Checkout, CheckoutLine } from '../../generated/prisma/client.js';
import { awaitsAction } from './checkout-access.js';

type Schemas = components['schemas'];
export type CheckoutResource = Schemas['Checkout'];
export type CheckoutLineResource = Schemas['CheckoutLine'];

/** A checkout line as the API shows it. */
export function toCheckoutLineResource(line: CheckoutLine): CheckoutLineResource {
  const unitPrice = Number(line.unitPrice);
  return {
    id: line.id,
    product_id: line.productId,
    variant_id: line.variantId,
    title: line.title,
    variant_title: line.variantTitle,
    sku: line.sku,
    quantity: line.quantity,
    unit_price: unitPrice,
    price_list_id: line.priceListId,
    total: line.quantity * unitPrice,
  };
}

/** The payment waiting for another step while the units are held, else null. */
function paymentOf(checkout: Checkout, now: Date): CheckoutResource['payment'] {
  if (!awaitsAction(checkout, now)) return null;
  return {
    provider: checkout.paymentProvider as Schemas['PaymentProvider'],
    status: 'requires_action',
    amount: Number(checkout.total - checkout.storeCreditAmount),
    ...(checkout.storeCreditAmount > 0n && { store_credit_amount: Number(checkout.storeCreditAmount) }),
    reference: checkout.paymentReference!,
    next_action:
      checkout.paymentProvider === 'stripe' && checkout.paymentClientSecret
        ? {
            type: 'stripe_sdk',
            description:
              "Hand client_secret to Stripe.js (stripe.handleNextAction), then call completeCheckout again; Stripe's payment_intent.succeeded event completes it too.",
            client_secret: checkout.paymentClientSecret,
          }
        : {
            type: 'confirm',
            description: "Call completeCheckout again to perform the test provider's extra step.",
          },
    reserved_until: checkout.reservedUntil!.toISOString(),
  };
}

/** A checkout with its lines as the API shows it; a payment step whose hold lapsed reads as open. */
export function toCheckoutResource(checkout: Checkout, lines: CheckoutLine[], now = new Date()): CheckoutResource {
  const lapsed = checkout.status === 'requires_action' && !awaitsAction(checkout, now);
  return {
    id: checkout.id,
    status: lapsed ? 'open' : (checkout.status as CheckoutResource['status']),
    customer_id: checkout.customerId,
    email: checkout.email,
    currency: checkout.currency,
    lines: lines.map(toCheckoutLineResource),
    shipping_address: checkout.shippingAddress as CheckoutResource['shipping_address'],
    billing_address: checkout.billingAddress as CheckoutResource['billing_address'],
    shipping_rate: checkout.shippingRate as CheckoutResource['shipping_rate'],
    note: checkout.note,
    subtotal: Number(checkout.subtotal),
    tax: Number(checkout.tax),
    tax_data: checkout.taxData as CheckoutResource['tax_data'],
    tax_inclusive: checkout.taxInclusive,
    shipping_cost: Number(checkout.shippingCost),
    discount: Number(checkout.discount),
    total: Number(checkout.total),
    payment: paymentOf(checkout, now),
    order_id: checkout.orderId,
    draft_order_id: checkout.draftOrderId,
    completed_at: checkout.completedAt?.toISOString() ?? null,
    expires_at: checkout.expiresAt.toISOString(),
    created_at: checkout.createdAt.toISOString(),
    updated_at: checkout.updatedAt.toISOString(),
  };
}
