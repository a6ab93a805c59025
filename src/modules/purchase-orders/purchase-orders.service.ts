import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { changedFields, recordChange, recordEvent, type EventType } from '../store-events/index.js';
import { toPurchaseOrderResource, type PurchaseOrderRow } from './purchase-orders.mappers.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';
import { checkLocation, checkSupplier, resolveLines } from './purchase-order-fields.js';

type PurchaseOrderCreate = components['schemas']['PurchaseOrderCreate'];
type PurchaseOrderUpdate = components['schemas']['PurchaseOrderUpdate'];

export const LINES_IN_ORDER = { lines: { orderBy: { position: 'asc' } } } as const;

const UPDATABLE_FIELDS = [
  'supplier_id',
  'location_id',
  'currency',
  'reference',
  'note',
  'expected_at',
  'lines',
  'total_quantity',
  'subtotal',
] as const;
// What only a draft may change: what was sent to the supplier is fixed once ordered.
const DRAFT_ONLY = ['supplier_id', 'location_id', 'currency', 'lines'] as const;

/**
 * The purchase order of the project with its lines; 404 "Purchase order not found." otherwise. With `lock`, its
 * row stays locked for the transaction, so writers of one order (receipts above all) queue behind each other.
 */
export async function findPurchaseOrder(
  ctx: Ctx,
  db: Database | Tx,
  id: string,
  lock = false,
): Promise<PurchaseOrderRow> {
  if (lock) await lockRows(db, 'purchase_orders', { projectId: ctx.project.id, ids: [id] });
  return findOwned(
    ctx,
    { findUnique: (args) => db.purchaseOrder.findUnique({ ...args, include: LINES_IN_ORDER }) },
    id,
    'Purchase order not found.',
  );
}

/** Records `type` for the order in the caller's transaction, the order as the API shows it as the payload. */
export async function recordPurchaseOrderEvent(
  tx: Tx,
  ctx: Ctx,
  type: EventType,
  order: PurchaseOrderRow,
  summary: string,
): Promise<void> {
  await recordEvent(tx, ctx, {
    type,
    resourceType: 'purchase_order',
    resourceId: order.id,
    summary: `Purchase order ${order.id} ${summary}`,
    payload: toPurchaseOrderResource(order),
  });
}

/** Creates a draft purchase order with its lines (every reference checked, 400 on its field); records purchase_order.created. */
export async function createPurchaseOrder(ctx: Ctx, input: PurchaseOrderCreate): Promise<PurchaseOrderRow> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    await checkLocation(ctx, tx, input.location_id);
    await checkSupplier(ctx, tx, input.supplier_id);
    const lines = await resolveLines(ctx, tx, input.lines ?? []);
    const order = await tx.purchaseOrder.create({
      data: {
        id: newId('po_'),
        projectId: ctx.project.id,
        supplierId: input.supplier_id ?? null,
        locationId: input.location_id,
        currency: input.currency ?? ctx.project.currency,
        reference: input.reference ?? null,
        note: input.note ?? null,
        expectedAt: input.expected_at ?? null,
        lines: { create: lines },
      },
      include: LINES_IN_ORDER,
    });
    await recordPurchaseOrderEvent(tx, ctx, 'purchase_order.created', order, 'created');
    return order;
  });
}

/**
 * Applies the fields sent; supplier, location, currency and lines only while a draft, the rest until the order is
 * received or cancelled (400 otherwise). Records purchase_order.updated with the changes; unchanged input writes nothing.
 */
export async function updatePurchaseOrder(ctx: Ctx, id: string, input: PurchaseOrderUpdate): Promise<PurchaseOrderRow> {
  checkCurrencyCode(input.currency);
  return writeTx(ctx, {}, async (tx) => {
    const before = await findPurchaseOrder(ctx, tx, id, true);
    if (before.status === 'received' || before.status === 'cancelled') {
      throw new AppError('invalid_request', `This purchase order is ${before.status} and can no longer change.`);
    }
    const draftOnly = DRAFT_ONLY.find((field) => input[field] !== undefined);
    if (draftOnly && before.status !== 'draft') {
      throw new AppError('invalid_request', `${draftOnly} changes only while the purchase order is a draft.`, {
        field: draftOnly,
      });
    }
    if (input.location_id !== undefined) await checkLocation(ctx, tx, input.location_id);
    await checkSupplier(ctx, tx, input.supplier_id);
    const lines = input.lines && (await resolveLines(ctx, tx, input.lines));
    const beforeResource = toPurchaseOrderResource(before);
    const proposed = { ...beforeResource, ...input, lines: beforeResource.lines };
    const linesChanged = lines !== undefined && !sameLines(before, lines);
    // Decided on the proposed state, so an unchanged PATCH writes nothing (updated_at stays).
    if (!linesChanged && Object.keys(changedFields(beforeResource, proposed, UPDATABLE_FIELDS)).length === 0) {
      return before;
    }
    const after = await tx.purchaseOrder.update({
      where: { id },
      data: {
        supplierId: input.supplier_id,
        locationId: input.location_id,
        currency: input.currency,
        reference: input.reference,
        note: input.note,
        expectedAt: input.expected_at,
        ...(linesChanged && { lines: { deleteMany: {}, create: lines } }),
      },
      include: LINES_IN_ORDER,
    });
    await recordChange(tx, ctx, {
      type: 'purchase_order.updated',
      resourceType: 'purchase_order',
      resourceId: id,
      label: `Purchase order ${id}`,
      before: beforeResource,
      after: toPurchaseOrderResource(after),
      fields: UPDATABLE_FIELDS,
    });
    return after;
  });
}

function sameLines(order: PurchaseOrderRow, lines: Array<{ variantId: string; quantity: number; unitCost: bigint }>) {
  return (
    order.lines.length === lines.length &&
    order.lines.every(
      (line, i) =>
        line.variantId === lines[i].variantId &&
        line.quantity === lines[i].quantity &&
        line.unitCost === lines[i].unitCost,
    )
  );
}

/** Moves a draft with at least one line to `ordered` (400 otherwise); records purchase_order.updated. */
export async function placePurchaseOrder(ctx: Ctx, id: string): Promise<PurchaseOrderRow> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await findPurchaseOrder(ctx, tx, id, true);
    if (before.status !== 'draft') {
      throw new AppError('invalid_request', `This purchase order is ${before.status}; only a draft can be ordered.`);
    }
    if (before.lines.length === 0) {
      throw new AppError('invalid_request', 'This purchase order has no lines; add lines before ordering it.');
    }
    const after = await tx.purchaseOrder.update({
      where: { id },
      data: { status: 'ordered', orderedAt: new Date() },
      include: LINES_IN_ORDER,
    });
    await recordChange(tx, ctx, {
      type: 'purchase_order.updated',
      resourceType: 'purchase_order',
      resourceId: id,
      label: `Purchase order ${id}`,
      before: toPurchaseOrderResource(before),
      after: toPurchaseOrderResource(after),
      fields: ['status', 'ordered_at'],
    });
    return after;
  });
}

/** Cancels a draft, ordered or partially received order (400 otherwise); received units stay. Records purchase_order.cancelled. */
export async function cancelPurchaseOrder(ctx: Ctx, id: string): Promise<PurchaseOrderRow> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await findPurchaseOrder(ctx, tx, id, true);
    if (before.status === 'received' || before.status === 'cancelled') {
      throw new AppError('invalid_request', `This purchase order is already ${before.status}.`);
    }
    const after = await tx.purchaseOrder.update({
      where: { id },
      data: { status: 'cancelled', cancelledAt: new Date() },
      include: LINES_IN_ORDER,
    });
    await recordPurchaseOrderEvent(tx, ctx, 'purchase_order.cancelled', after, 'cancelled');
    return after;
  });
}
