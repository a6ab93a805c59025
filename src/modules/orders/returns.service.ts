import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Order, Prisma, Return } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { recordEvent, type EventType } from '../store-events/index.js';
import { shippedUnits } from './fulfillments.service.js';
import { recordOrderMove } from './order-history.js';
import type { OrderLineItemResource } from './orders.mappers.js';
import { findOrder } from './orders.service.js';
import { returnedUnits } from './refunds.service.js';
import { checkReturnLines } from './return-lines.js';
import { toReturnResource, type ReturnStatus } from './returns.mappers.js';

type ReturnCreate = components['schemas']['ReturnCreate'];
/** Who asks for a return: the merchant (secret key) or the signed-in customer the order belongs to. */
export type Requester = { kind: 'merchant' } | { kind: 'customer'; customerId: string };

const NOT_FOUND = 'Return not found.';
const RETURNS_FIELDS = ['returns'] as const;
const DAY_MS = 86_400_000;

/** The return of the project; 404 "Return not found." otherwise. */
export async function findReturn(ctx: Ctx, db: Ctx['db'] | Tx, id: string): Promise<Return> {
  return findOwned(ctx, db.return, id, NOT_FOUND);
}

/** The order's returns, oldest first; 404 for an order of another project. */
export async function listReturns(ctx: Ctx, orderId: string): Promise<Return[]> {
  await findOrder(ctx, ctx.db, orderId);
  return ctx.db.return.findMany({ where: { orderId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/**
 * The return and its order in the caller's transaction, the order's row locked first (so every write of the
 * order's returns, fulfilments and refunds queues behind it), the return read again under that lock.
 */
export async function lockReturn(tx: Tx, ctx: Ctx, id: string): Promise<{ row: Return; order: Order }> {
  const { orderId } = await findReturn(ctx, tx, id);
  const order = await findOrder(ctx, tx, orderId, true);
  return { row: await tx.return.findUniqueOrThrow({ where: { id } }), order };
}

/** 400 unless the return is in one of `from`, saying which moves it can take. */
export function expectStatus(row: Return, from: ReturnStatus[], move: string): void {
  if (from.includes(row.status as ReturnStatus)) return;
  const named = from.length === 1 ? from[0] : `${from.slice(0, -1).join(', ')} or ${from.at(-1)}`;
  const allowed = `${/^[aeiou]/.test(named) ? 'an' : 'a'} ${named}`;
  throw new AppError('invalid_request', `This return is ${row.status}; only ${allowed} return can be ${move}.`);
}

/** Writes the order's return summaries ([{id, status}], oldest first) and records order.updated when they changed. */
async function syncOrderReturns(tx: Tx, ctx: Ctx, before: Order): Promise<void> {
  const rows = await tx.return.findMany({
    where: { orderId: before.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, status: true },
  });
  const after = await tx.order.update({ where: { id: before.id }, data: { returns: rows } });
  await recordOrderMove(tx, ctx, { before, after, fields: RETURNS_FIELDS });
}

/**
 * Updates the return (its order's row lock held), keeps the order's summaries, and records `type` with the
 * return as payload; answers the updated return.
 */
export async function moveReturn(
  tx: Tx,
  ctx: Ctx,
  move: { row: Return; order: Order; data: Prisma.ReturnUpdateInput; type: EventType; summary: string },
): Promise<Return> {
  const after = await tx.return.update({ where: { id: move.row.id }, data: move.data });
  await syncOrderReturns(tx, ctx, move.order);
  await recordEvent(tx, ctx, {
    type: move.type,
    resourceType: 'return',
    resourceId: after.id,
    summary: `Return of order #${move.order.orderNumber} ${move.summary}`,
    ...(after.status !== move.row.status && { changes: { status: { from: move.row.status, to: after.status } } }),
    payload: toReturnResource(after),
  });
  return after;
}

/** 400 unless the signed-in customer is still within the project's return window of the order's latest shipment. */
async function checkReturnWindow(tx: Tx, ctx: Ctx, order: Order): Promise<void> {
  const days = ctx.project.returnWindowDays;
  if (days === 0) {
    throw new AppError('invalid_request', 'This store does not take return requests online; please contact it.');
  }
  const latest = await tx.fulfillment.findFirst({
    where: { orderId: order.id, status: 'success' },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { createdAt: true },
  });
  if (!latest)
    throw new AppError('invalid_request', 'Nothing of this order has shipped yet, so nothing can be returned.');
  const until = new Date(latest.createdAt.getTime() + days * DAY_MS);
  if (Date.now() > until.getTime()) {
    throw new AppError(
      'invalid_request',
      `Returns of this order could be requested until ${until.toISOString().slice(0, 10)} (${days} days after its last shipment).`,
    );
  }
}

/**
 * Records a requested return in one transaction under the order's row lock, so concurrent requests queue and
 * their units never exceed what shipped minus what other returns hold and refunds restocked. A customer's
 * request must be for their own order (404 otherwise) within the return window. Records return.requested and
 * the order's summaries (order.updated).
 */
export async function createReturn(ctx: Ctx, orderId: string, input: ReturnCreate, requester: Requester) {
  return writeTx(ctx, {}, async (tx) => {
    const order = await findOrder(ctx, tx, orderId, true);
    if (requester.kind === 'customer' && order.customerId !== requester.customerId) throw notFound('Order not found.');
    if (order.status === 'cancelled') {
      throw new AppError('invalid_request', 'This order is cancelled; its units cannot be returned.');
    }
    if (requester.kind === 'customer') await checkReturnWindow(tx, ctx, order);
    const shipped = await shippedUnits(tx, order.id);
    const held = await returnedUnits(tx, order);
    const items = order.lineItems as OrderLineItemResource[];
    const lines = checkReturnLines(
      items,
      shipped.map((units, index) => units - held[index]),
      input.line_items,
    );
    const row = await tx.return.create({
      data: {
        id: newId('ret_'),
        projectId: ctx.project.id,
        orderId: order.id,
        requestedBy: requester.kind,
        reason: input.reason,
        note: input.note ?? null,
        lineItems: lines,
      },
    });
    const units = lines.reduce((sum, line) => sum + line.quantity, 0);
    await syncOrderReturns(tx, ctx, order);
    await recordEvent(tx, ctx, {
      type: 'return.requested',
      resourceType: 'return',
      resourceId: row.id,
      summary: `Return of ${units} unit${units === 1 ? '' : 's'} of order #${order.orderNumber} requested`,
      payload: toReturnResource(row),
    });
    return row;
  });
}

/** Cancels a requested or approved return (400 otherwise) under the order's row lock; its units can be returned again. */
export async function cancelReturn(ctx: Ctx, id: string): Promise<Return> {
  return writeTx(ctx, {}, async (tx) => {
    const { row, order } = await lockReturn(tx, ctx, id);
    expectStatus(row, ['requested', 'approved'], 'cancelled');
    return moveReturn(tx, ctx, {
      row,
      order,
      data: { status: 'cancelled', cancelledAt: new Date() },
      type: 'return.cancelled',
      summary: 'cancelled',
    });
  });
}
