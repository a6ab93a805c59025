import type { Tx } from '../../db/client.js';
import type { Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { recordChange, recordEvent, type EventType } from '../store-events/index.js';
import { toOrderResource } from './orders.mappers.js';

/**
 * Records an order's move from `before` to `after` in the same transaction: the named event (when given) with the
 * order as its payload and "Order #N <summary>" as its summary, then order.updated with the changed `fields`.
 */
export async function recordOrderMove(
  tx: Tx,
  ctx: Ctx,
  move: { before: Order; after: Order; fields: readonly string[]; event?: { type: EventType; summary: string } },
): Promise<void> {
  const { before, after } = move;
  const resource = toOrderResource(after);
  const label = `Order #${after.orderNumber}`;
  if (move.event) {
    await recordEvent(tx, ctx, {
      type: move.event.type,
      resourceType: 'order',
      resourceId: after.id,
      summary: `${label} ${move.event.summary}`,
      payload: resource,
    });
  }
  await recordChange(tx, ctx, {
    type: 'order.updated',
    resourceType: 'order',
    resourceId: after.id,
    label,
    before: toOrderResource(before),
    after: resource,
    fields: move.fields,
  });
}
