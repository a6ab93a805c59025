import type { Database, Tx } from '../../db/client.js';
import type { DraftLineItem, DraftOrder, Prisma, Project } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { findOwned } from '../../shared/owned.js';
import { allocateAmount, type DiscountApplicationResource, type Discounted } from '../discounts/index.js';
import { changedFields, recordEvent, type FieldChanges } from '../store-events/index.js';
import { jsonColumn } from '../../shared/json-column.js';
import { toDraftOrderResource } from './draft-orders.mappers.js';
import { computeTotals, type TaxAddress, type TaxSettings } from './totals.js';
import { lockRows } from '../../shared/write.js';

/** The fields of a draft whose changes draft_order.updated records. */
export const DRAFT_FIELDS = [
  'status',
  'customer_id',
  'customer_email',
  'subtotal',
  'tax',
  'tax_data',
  'tax_inclusive',
  'shipping_cost',
  'discount',
  'manual_discount',
  'discount_codes',
  'discount_applications',
  'total',
  'currency',
  'shipping_address',
  'billing_address',
  'payment_terms',
  'payment_due_date',
  'order_id',
  'completed_at',
  'item_count',
  'notes',
  'metadata',
] as const;

// Far below 2^53, so sums of amounts stay exact in JavaScript numbers.
export const MAX_AMOUNT = 1_000_000_000_000_000;

/** The draft order of the project; 404 "Draft order not found." otherwise. With `lock`, its row stays locked for the transaction. */
export async function findDraftOrder(ctx: Ctx, db: Database | Tx, id: string, lock = false): Promise<DraftOrder> {
  // Every write to a draft takes this lock first, so writes to one draft (items, totals, completion) queue up.
  if (lock) await lockRows(db, 'draft_orders', { projectId: ctx.project.id, ids: [id] });
  return findOwned(ctx, db.draftOrder, id, 'Draft order not found.');
}

/** The draft locked for a change; 400 when it is completed, as a completed draft never changes. */
export async function draftForChange(ctx: Ctx, tx: Tx, id: string): Promise<DraftOrder> {
  const draft = await findDraftOrder(ctx, tx, id, true);
  if (draft.status === 'completed') throw new AppError('invalid_request', 'A completed draft order cannot be changed.');
  return draft;
}

/** The draft's line items in the order they were added. */
export function itemsOf(db: Database | Tx, draftOrderId: string): Promise<DraftLineItem[]> {
  return db.draftLineItem.findMany({ where: { draftOrderId }, orderBy: { position: 'asc' } });
}

/** The project's tax setting (openapi.yaml, `TaxSettings`). */
export const taxSettingsOf = (project: Project): TaxSettings => project.tax as unknown as TaxSettings;

/** The manual discount as an application: spread over what the lines have left (allocateAmount), the rest on none. */
function manualApplication(amount: number, lineNet: number[]): DiscountApplicationResource {
  const parts = allocateAmount(amount, lineNet);
  return {
    source: 'manual',
    id: null,
    code: null,
    title: 'Manual discount',
    type: 'manual',
    amount,
    lines: parts.flatMap((part, index) => (part > 0 ? [{ line_index: index, amount: part }] : [])),
    shipping_amount: 0,
  };
}

/**
 * The draft with its subtotal, tax, total, discount and item count recomputed from `items` (see totals.ts) after
 * the reductions of `discounted` (codes and promotions; none without it), taxed on what each line has left, then
 * its manual discount taken off (openapi.yaml, the discounts tag, "Draft orders"); 400 on `negativeField` when
 * the total would be negative.
 */
export function withTotals(
  ctx: Ctx,
  draft: DraftOrder,
  items: DraftLineItem[],
  negativeField = 'discount',
  discounted?: Discounted,
): DraftOrder {
  const gross = items.map((item) => item.quantity * Number(item.unitPrice));
  const subtotal = gross.reduce((sum, amount) => sum + amount, 0);
  const net = discounted?.evaluation.lineNet ?? gross;
  const reductions = discounted?.evaluation.discount ?? 0;
  const manual = Number(draft.manualDiscount);
  const totals = computeTotals({
    // Taxed after the reductions: each line at what it has left (as one unit, so its tax is rounded once).
    lines: net.map((amount) => ({ quantity: 1, unitPrice: amount })),
    shippingCost: Number(draft.shippingCost),
    discount: 0,
    manualTax: Number(draft.tax),
    settings: taxSettingsOf(ctx.project),
    shippingAddress: draft.shippingAddress as TaxAddress | null,
    billingAddress: draft.billingAddress as TaxAddress | null,
  });
  if (subtotal + totals.tax + Number(draft.shippingCost) > MAX_AMOUNT) {
    throw invalidField('items', `A draft order's amounts must stay below ${MAX_AMOUNT} minor units.`);
  }
  const added = totals.taxInclusive ? 0 : totals.tax;
  const total = subtotal - reductions + added + Number(draft.shippingCost) - manual;
  if (total < 0) {
    const left = reductions > 0 ? `, less the codes' and promotions' ${reductions},` : '';
    throw invalidField(
      negativeField,
      `The total would be ${total}: the discount (${manual}) cannot exceed the subtotal, tax and shipping cost together${left}.`,
    );
  }
  const applications = [...(discounted?.applications ?? []), ...(manual > 0 ? [manualApplication(manual, net)] : [])];
  return {
    ...draft,
    subtotal: BigInt(subtotal),
    tax: BigInt(totals.tax),
    taxData: totals.taxData as unknown as Prisma.JsonValue,
    taxInclusive: totals.taxInclusive,
    discount: BigInt(reductions + manual),
    discountApplications: applications,
    total: BigInt(total),
    itemCount: items.length,
  };
}

/** Every stored column of a draft that a write may change. */
function columnsOf(draft: DraftOrder): Prisma.DraftOrderUncheckedUpdateInput {
  return {
    status: draft.status,
    customerId: draft.customerId,
    customerEmail: draft.customerEmail,
    subtotal: draft.subtotal,
    tax: draft.tax,
    taxData: jsonColumn(draft.taxData),
    taxInclusive: draft.taxInclusive,
    shippingCost: draft.shippingCost,
    discount: draft.discount,
    manualDiscount: draft.manualDiscount,
    discountCodes: draft.discountCodes,
    discountApplications: draft.discountApplications as Prisma.InputJsonValue,
    total: draft.total,
    currency: draft.currency,
    shippingAddress: jsonColumn(draft.shippingAddress),
    billingAddress: jsonColumn(draft.billingAddress),
    paymentTerms: draft.paymentTerms,
    paymentDueDate: draft.paymentDueDate,
    orderId: draft.orderId,
    completedAt: draft.completedAt,
    itemCount: draft.itemCount,
    notes: draft.notes,
    metadata: draft.metadata as Prisma.InputJsonValue,
  };
}

/**
 * Stores `after` and records draft_order.updated with the changed fields plus `extra.changes` (line
 * items); when nothing changed it writes nothing and records nothing.
 */
export async function saveDraft(
  tx: Tx,
  ctx: Ctx,
  before: DraftOrder,
  after: DraftOrder,
  extra: { what?: string; changes?: FieldChanges; always?: boolean } = {},
): Promise<DraftOrder> {
  const changes = {
    ...changedFields(toDraftOrderResource(before), toDraftOrderResource(after), DRAFT_FIELDS),
    ...extra.changes,
  };
  if (Object.keys(changes).length === 0 && !extra.always) return before;
  const saved = await tx.draftOrder.update({ where: { id: before.id }, data: columnsOf(after) });
  await recordEvent(tx, ctx, {
    type: 'draft_order.updated',
    resourceType: 'draft_order',
    resourceId: before.id,
    summary: `Draft order #${before.draftNumber} updated (${extra.what ?? Object.keys(changes).join(', ')})`,
    changes: Object.keys(changes).length > 0 ? changes : undefined,
    payload: toDraftOrderResource(saved),
  });
  return saved;
}
