import type { components } from '../../generated/openapi.js';
import type { DraftLineItem, DraftOrder } from '../../generated/prisma/client.js';
import { toDateString } from '../../shared/payment-terms.js';
import type { DiscountApplicationResource } from '../discounts/index.js';
import { toOrderLineItem } from '../orders/index.js';

type Schemas = components['schemas'];
export type DraftOrderResource = Schemas['DraftOrder'];
export type DraftLineItemResource = Schemas['DraftLineItem'];
export type AddressResource = Schemas['Address'];
export type AddressInput = Schemas['DraftAddress'];
export type TaxDataResource = Schemas['TaxData'];

/** An address as stored and shown: every field present, the optional ones null when not sent. */
export function toStoredAddress(input: AddressInput | null | undefined): AddressResource | null {
  if (!input) return null;
  return {
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    company: input.company ?? null,
    line1: input.line1,
    line2: input.line2 ?? null,
    city: input.city,
    state: input.state ?? null,
    postal_code: input.postal_code ?? null,
    country: input.country,
    phone: input.phone ?? null,
  };
}

/** A draft line item as the API shows it: the fields an order copies, plus its own. */
export function toDraftLineItemResource(item: DraftLineItem): DraftLineItemResource {
  return {
    id: item.id,
    draft_order_id: item.draftOrderId,
    ...toOrderLineItem(item),
    base_price: item.basePrice === null ? null : Number(item.basePrice),
    price_list_id: item.priceListId,
    is_custom: item.isCustom,
    note: item.note,
    created_at: item.createdAt.toISOString(),
  };
}

/** A draft order as the API shows it; items only when given (expand=items). */
export function toDraftOrderResource(draft: DraftOrder, items?: DraftLineItem[]): DraftOrderResource {
  return {
    id: draft.id,
    draft_number: draft.draftNumber,
    status: draft.status as DraftOrderResource['status'],
    customer_id: draft.customerId,
    customer_email: draft.customerEmail,
    subtotal: Number(draft.subtotal),
    tax: Number(draft.tax),
    tax_data: draft.taxData as TaxDataResource | null,
    tax_inclusive: draft.taxInclusive,
    shipping_cost: Number(draft.shippingCost),
    discount: Number(draft.discount),
    manual_discount: Number(draft.manualDiscount),
    discount_codes: draft.discountCodes,
    discount_applications: draft.discountApplications as DiscountApplicationResource[],
    total: Number(draft.total),
    currency: draft.currency,
    shipping_address: draft.shippingAddress as AddressResource | null,
    billing_address: draft.billingAddress as AddressResource | null,
    payment_terms: draft.paymentTerms as DraftOrderResource['payment_terms'],
    payment_due_date: toDateString(draft.paymentDueDate),
    order_id: draft.orderId,
    completed_at: draft.completedAt?.toISOString() ?? null,
    item_count: draft.itemCount,
    notes: draft.notes,
    metadata: draft.metadata as Record<string, unknown>,
    ...(items && { items: items.map(toDraftLineItemResource) }),
    created_at: draft.createdAt.toISOString(),
    updated_at: draft.updatedAt.toISOString(),
  };
}
