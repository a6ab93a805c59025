import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { releaseRedemptions } from '../discounts/index.js';
import { restockUnits, type StockAllocation } from '../inventory/index.js';
import { recordOrderMove } from './order-history.js';
import type { FulfillmentLineItem, OrderLineItemResource } from './orders.mappers.js';
import { findOrder } from './orders.service.js';
import { settleCommittedRefund, type RefundOptions } from './refund-settlement.js';
import { refundLocked } from './refunds.service.js';

type OrderCancel = components['schemas']['OrderCancel'];

const CANCEL_FIELDS = ['status', 'cancel_reason', 'cancelled_at'] as const;

/** Units of each variant shipped from each location by the order's active fulfilments ("variant location" -> units). */
async function shippedByPlace(tx: Tx, order: Order): Promise<Map<string, number>> {
  const items = order.lineItems as OrderLineItemResource[];
  const shipped = new Map<string, number>();
  const active = await tx.fulfillment.findMany({ where: { orderId: order.id, status: 'success' } });
  for (const fulfillment of active) {
    for (const line of fulfillment.lineItems as FulfillmentLineItem[]) {
      const variantId = items[line.line_item_index]?.variant_id;
      if (!variantId) continue;
      const key = `${variantId} ${fulfillment.locationId}`;
      shipped.set(key, (shipped.get(key) ?? 0) + line.quantity);
    }
  }
  return shipped;
}

/**
 * The units completion took that have not shipped, per location: shipped units are counted against the
 * allocation at the location they shipped from first, the rest against the variant's other allocations.
 */
export function unshippedAllocations(allocations: StockAllocation[], shipped: Map<string, number>): StockAllocation[] {
  const left = allocations.map((allocation) => ({ ...allocation }));
  const unplaced = new Map<string, number>();
  for (const [key, units] of shipped) {
    const [variantId, locationId] = key.split(' ');
    let rest = units;
    for (const allocation of left.filter((a) => a.variant_id === variantId && a.location_id === locationId)) {
      const take = Math.min(allocation.quantity, rest);
      allocation.quantity -= take;
      rest -= take;
    }
    unplaced.set(variantId, (unplaced.get(variantId) ?? 0) + rest);
  }
  for (const allocation of left) {
    const rest = unplaced.get(allocation.variant_id) ?? 0;
    const take = Math.min(allocation.quantity, rest);
    allocation.quantity -= take;
    unplaced.set(allocation.variant_id, rest - take);
  }
  return left.filter((allocation) => allocation.quantity > 0);
}

/** With `refund`, refunds what was paid and not yet refunded (no restock lines: the units are restocked by the cancellation). */
async function refundRest(
  tx: Tx,
  ctx: Ctx,
  order: Order,
  input: OrderCancel,
): Promise<{ order: Order; pendingRefund?: string }> {
  const rest = order.total - order.totalRefunded;
  if (!input.refund || order.financialStatus === 'pending' || rest === 0n) return { order };
  const reason = `Order cancelled (${input.reason})`;
  const { refund, order: refunded } = await refundLocked(tx, ctx, order, { amount: Number(rest), reason });
  return { order: refunded, pendingRefund: refund.status === 'pending' ? refund.id : undefined };
}

/**
 * Cancels an open order in one transaction under its row lock: with `restock` (default) the units not
 * shipped go back to the locations completion took them from, through the inventory ledger; the discount codes'
 * uses are given back (releaseRedemptions); status,
 * cancel_reason and cancelled_at are set, the customer's order_count drops by one; with `refund`, what was
 * paid and not yet refunded is refunded (total_spent drops by it) through the order's provider, asked after
 * commit as createRefund asks it; order.cancelled and order.updated are recorded. 400 when it is already cancelled
 * or fully fulfilled.
 */
export async function cancelOrder(
  ctx: Ctx,
  id: string,
  input: OrderCancel,
  options: RefundOptions = {},
): Promise<Order> {
  let pendingRefund: string | undefined;
  const cancelled = await writeTx(ctx, {}, async (tx) => {
    const before = await findOrder(ctx, tx, id, true);
    if (before.status === 'cancelled') throw new AppError('invalid_request', 'This order is already cancelled.');
    if (before.fulfillmentStatus === 'fulfilled') {
      throw new AppError(
        'invalid_request',
        'This order is fulfilled: every unit has shipped, so it cannot be cancelled.',
      );
    }
    // Before the units: completions lock a code's row before the variants', so cancelling does too.
    await releaseRedemptions(tx, ctx, id);
    if (input.restock ?? true) {
      const allocations = before.stockAllocations as unknown as StockAllocation[];
      await restockUnits(tx, ctx, unshippedAllocations(allocations, await shippedByPlace(tx, before)));
    }
    const { order: refunded, pendingRefund: pending } = await refundRest(tx, ctx, before, input);
    pendingRefund = pending;
    const after = await tx.order.update({
      where: { id },
      data: { status: 'cancelled', cancelReason: input.reason, cancelledAt: new Date() },
    });
    if (after.customerId) {
      await tx.$executeRaw`UPDATE customers SET order_count = GREATEST(order_count - 1, 0) WHERE id = ${after.customerId} AND project_id = ${ctx.project.id}`;
    }
    await recordOrderMove(tx, ctx, {
      before: refunded,
      after,
      fields: CANCEL_FIELDS,
      event: { type: 'order.cancelled', summary: `cancelled (${input.reason})` },
    });
    return after;
  });
  if (!pendingRefund) return cancelled;
  return (await settleCommittedRefund(ctx, pendingRefund, options))?.order ?? cancelled;
}
