import type { Database, Tx } from '../../db/client.js';
import type { DraftLineItem, DraftOrder, Prisma, Project } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { findOwned } from '../../shared/owned.js';
import { changedFields, recordEvent, type FieldChanges } from '../store-events/index.js';
import { jsonColumn } from '../../shared/json-column.js';
import { toDraftOrderResource } from './draft-orders.mappers.js';
import { computeTotals, type TaxAddress, type TaxSettings } from './totals.js';

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
  if (lock) await db.$queryRaw`SELECT id FROM draft_orders WHERE id = ${id} FOR UPDATE`;
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

/**
 * The draft with its subtotal, tax, total and item count recomputed from `items` (see totals.ts); 400 on
 * `negativeField` when the total would be negative.
 */
export function withTotals(
  ctx: Ctx,
  draft: DraftOrder,
  items: DraftLineItem[],
  negativeField = 'discount',
): DraftOrder {
  const totals = computeTotals({
    lines: items.map((item) => ({ quantity: item.quantity, unitPrice: Number(item.unitPrice) })),
    shippingCost: Number(draft.shippingCost),
    discount: Number(draft.discount),
    manualTax: Number(draft.tax),
    settings: taxSettingsOf(ctx.project),
    shippingAddress: draft.shippingAddress as TaxAddress | null,
    billingAddress: draft.billingAddress as TaxAddress | null,
  });
  if (totals.subtotal + totals.tax + Number(draft.shippingCost) > MAX_AMOUNT) {
    throw invalidField('items', `A draft order's amounts must stay below ${MAX_AMOUNT} minor units.`);
  }
  if (totals.total < 0) {
    throw invalidField(
      negativeField,
      `The total would be ${totals.total}: the discount (${draft.discount}) cannot exceed the subtotal, tax and shipping cost together.`,
    );
  }
  return {
    ...draft,
    subtotal: BigInt(totals.subtotal),
    tax: BigInt(totals.tax),
    taxData: totals.taxData as unknown as Prisma.JsonValue,
    taxInclusive: totals.taxInclusive,
    total: BigInt(totals.total),
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
