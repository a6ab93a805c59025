import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Order, Refund } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { isOuterTransaction } from '../../db/nested-transaction.js';
import { restockUnits, stockLocation } from '../inventory/index.js';
import { recordEvent } from '../store-events/index.js';
import { refundStoreCreditPart } from './refund-store-credit.js';
import { recordOrderMove } from './order-history.js';
import {
  toRefundResource,
  type FulfillmentLineItem,
  type OrderLineItemResource,
  type RefundLineItem,
} from './orders.mappers.js';
import { findOrder } from './orders.service.js';
import { lineIndexOf } from './line-refs.js';
import { unitsInReturns } from './return-units.js';
import { paymentOf, settleCommittedRefund, type RefundOptions } from './refund-settlement.js';
import { paidForReturnedUnits } from './refund-allocation.js';

type RefundCreate = components['schemas']['RefundCreate'];

const REFUND_FIELDS = ['financial_status', 'total_refunded'] as const;

/** Per order line item: units shipped by active fulfilments, the location its first one shipped from, units restocked by refunds or held by returns. */
async function lineUnits(tx: Tx, order: Order) {
  const count = (order.lineItems as OrderLineItemResource[]).length;
  const shipped = new Array<number>(count).fill(0);
  const shippedFrom = new Array<string | undefined>(count).fill(undefined);
  const restocked = new Array<number>(count).fill(0);
  const fulfillments = await tx.fulfillment.findMany({
    where: { orderId: order.id, status: 'success' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  for (const fulfillment of fulfillments) {
    for (const line of fulfillment.lineItems as FulfillmentLineItem[]) {
      shipped[line.line_item_index] += line.quantity;
      shippedFrom[line.line_item_index] ??= fulfillment.locationId;
    }
  }
  for (const refund of await tx.refund.findMany({ where: { orderId: order.id }, select: { lineItems: true } })) {
    for (const line of refund.lineItems as RefundLineItem[]) restocked[line.line_item_index] += line.quantity;
  }
  (await unitsInReturns(tx, order.id, count)).forEach((units, index) => (restocked[index] += units));
  return { shipped, shippedFrom, restocked };
}

/** Units of each line item restocked by the order's refunds or held by its returns (returned units). */
export async function returnedUnits(tx: Tx, order: Order): Promise<number[]> {
  return (await lineUnits(tx, order)).restocked;
}

/**
 * Checks the restock lines against the order (only shipped units that have not already come back can be
 * restocked, each line once) and fills in each line's location: given, else where the line's units shipped from.
 */
async function restockLines(
  tx: Tx,
  ctx: Ctx,
  order: Order,
  lines: RefundCreate['line_items'],
): Promise<RefundLineItem[]> {
  if (!lines?.length) return [];
  const items = order.lineItems as OrderLineItemResource[];
  const units = await lineUnits(tx, order);
  const seen = new Set<number>();
  const checked: RefundLineItem[] = [];
  for (const [position, line] of lines.entries()) {
    const field = `line_items[${position}]`;
    const index = lineIndexOf(items, line, field);
    const item = items[index];
    if (seen.has(index)) throw invalidField(`${field}.line_item_index`, `Line item ${index} is listed twice.`);
    seen.add(index);
    if (!item.variant_id) {
      throw invalidField(
        `${field}.line_item_index`,
        `Line item ${index} (${item.title}) is a custom item: it holds no stock to restock.`,
      );
    }
    const returnable = units.shipped[index] - units.restocked[index];
    if (line.quantity > returnable) {
      throw invalidField(
        `${field}.quantity`,
        `Line item ${index} has ${returnable} shipped unit${returnable === 1 ? '' : 's'} that can come back; ${line.quantity} requested. Units not shipped return to stock when the order is cancelled.`,
      );
    }
    const locationId = line.location_id ?? units.shippedFrom[index]!;
    await stockLocation(ctx, tx, locationId, `${field}.location_id`);
    checked.push({ line_item_id: item.id, line_item_index: index, quantity: line.quantity, location_id: locationId });
  }
  return checked;
}

/**
 * Records a refund of a paid order in the caller's transaction, which must hold the order's row lock: the
 * amount is at most what was paid minus what was refunded before (pending refunds count); the restock lines' units
 * go back through the inventory ledger; total_refunded and financial_status (partially_refunded, refunded) follow;
 * the customer's total_spent drops by the amount; refund.created, order.refunded and order.updated are recorded.
 * The part the order paid with store credit goes back to the customer's store credit first, here and for good
 * (refund-store-credit.ts); only the rest goes back through the provider that took the order's payment: `manual`
 * (or an order paid without a provider) is recorded as succeeded at once (refund.succeeded), as is a refund with
 * no money left for a provider (all store credit: provider `store_credit`; units only); `test` and `stripe` are
 * recorded pending, and the provider is asked after commit (settleRefund), never inside this transaction. A
 * `settle-refund` job is enqueued with the refund, so a pending refund is settled even when nobody calls
 * settleRefund (a crash, an outer transaction): at once after commit in an outer transaction, else as a backstop a
 * minute later.
 */
export async function refundLocked(
  tx: Tx,
  ctx: Ctx,
  before: Order,
  input: RefundCreate,
): Promise<{ refund: Refund; order: Order }> {
  const returnedBefore = input.amount === undefined ? await returnedUnits(tx, before) : [];
  const lines = await restockLines(tx, ctx, before, input.line_items);
  if (before.financialStatus === 'pending') {
    throw new AppError('invalid_request', 'This order is not paid, so there is nothing to refund.');
  }
  const left = before.total - before.totalRefunded;
  // Left out: what was paid for the units returned (refund-allocation.ts).
  const amount = BigInt(input.amount ?? paidForReturnedUnits(before, lines, returnedBefore));
  if (amount > left) {
    throw invalidField(
      'amount',
      `At most ${left} (minor units of ${before.currency}) can be refunded: ${before.totalRefunded} of ${before.total} already was.`,
    );
  }
  if (amount === 0n && lines.length === 0) {
    throw invalidField('amount', 'A refund returns money (amount above 0), units (line_items), or both.');
  }
  const items = before.lineItems as OrderLineItemResource[];
  await restockUnits(
    tx,
    ctx,
    lines.map((line) => ({
      variant_id: items[line.line_item_index].variant_id!,
      location_id: line.location_id,
      quantity: line.quantity,
    })),
  );
  const refundId = newId('rfnd_');
  const storeCredit = await refundStoreCreditPart(tx, ctx, before, {
    refundId,
    amount,
    method: input.store_credit_refund_method,
  });
  // Only the money left after the store credit part goes to the provider; with none left (all of it store credit,
  // or units only) no provider is asked.
  const money = amount - storeCredit;
  const provider = storeCredit > 0n && money === 0n ? 'store_credit' : paymentOf(before).provider;
  const settled = provider === 'manual' || money === 0n;
  const refund = await tx.refund.create({
    data: {
      id: refundId,
      projectId: ctx.project.id,
      orderId: before.id,
      amount,
      reason: input.reason ?? null,
      lineItems: lines,
      provider,
      status: settled ? 'succeeded' : 'pending',
      storeCreditAmount: storeCredit,
    },
  });
  const totalRefunded = before.totalRefunded + amount;
  const order = await tx.order.update({
    where: { id: before.id },
    data: { totalRefunded, financialStatus: totalRefunded === before.total ? 'refunded' : 'partially_refunded' },
  });
  if (order.customerId && amount > 0n) {
    await tx.$executeRaw`UPDATE customers SET total_spent = total_spent - ${amount} WHERE id = ${order.customerId} AND project_id = ${ctx.project.id}`;
  }
  await recordEvent(tx, ctx, {
    type: 'refund.created',
    resourceType: 'refund',
    resourceId: refund.id,
    summary: `Refund of ${amount} ${order.currency} on order #${order.orderNumber}`,
    payload: toRefundResource(refund, order.currency),
  });
  if (settled) {
    await recordEvent(tx, ctx, {
      type: 'refund.succeeded',
      resourceType: 'refund',
      resourceId: refund.id,
      summary: `Refund of ${amount} ${order.currency} on order #${order.orderNumber} recorded (${provider})`,
      payload: toRefundResource(refund, order.currency),
    });
  } else {
    // Asked of the provider by the caller after commit; this job settles it if nobody does (retried until answered).
    const startAfter = isOuterTransaction(ctx.db) ? 0 : SETTLE_BACKSTOP_SECONDS;
    await ctx.jobs.enqueue(
      tx,
      'settle-refund',
      { v: 1, projectId: ctx.project.id, refundId: refund.id },
      { startAfter },
    );
  }
  await recordOrderMove(tx, ctx, {
    before,
    after: order,
    fields: REFUND_FIELDS,
    event: {
      type: 'order.refunded',
      summary: `refunded ${amount} ${order.currency} (${totalRefunded} of ${order.total} in all)`,
    },
  });
  return { refund, order };
}

// A refund the request settles itself is left to the job only if the request dies first: a minute is ample.
const SETTLE_BACKSTOP_SECONDS = 60;

/**
 * Refunds (part of) a paid order: recorded in one transaction under the order's row lock, so concurrent refunds
 * queue and never exceed what was paid; then, with no transaction open, the order's provider is asked and the
 * answer settled (settleRefund), so the refund answered is succeeded, failed, or pending when the provider has
 * not answered yet (or when the request runs inside an Idempotency-Key's transaction: its job asks after commit).
 */
export async function createRefund(
  ctx: Ctx,
  orderId: string,
  input: RefundCreate,
  options: RefundOptions = {},
): Promise<{ refund: Refund; order: Order }> {
  const recorded = await writeTx(ctx, {}, async (tx) =>
    refundLocked(tx, ctx, await findOrder(ctx, tx, orderId, true), input),
  );
  if (recorded.refund.status !== 'pending') return recorded;
  return (await settleCommittedRefund(ctx, recorded.refund.id, options)) ?? recorded;
}

/** The order's refunds, oldest first; 404 for an order of another project. */
export async function listRefunds(ctx: Ctx, orderId: string): Promise<{ refunds: Refund[]; order: Order }> {
  const order = await findOrder(ctx, ctx.db, orderId);
  const refunds = await ctx.db.refund.findMany({ where: { orderId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return { refunds, order };
}
