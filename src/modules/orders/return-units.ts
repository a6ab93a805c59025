import type { Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import type { ReturnLineItem } from './returns.mappers.js';

/** Return statuses whose units no longer count as returned: they can be requested (or refunded) again. */
export const RELEASED_RETURN_STATUSES = ['rejected', 'cancelled'];

/** Units of each of the order's `count` line items held by its returns that are not rejected or cancelled. */
export async function unitsInReturns(tx: Tx | Ctx['db'], orderId: string, count: number): Promise<number[]> {
  const held = new Array<number>(count).fill(0);
  const rows = await tx.return.findMany({
    where: { orderId, status: { notIn: RELEASED_RETURN_STATUSES } },
    select: { lineItems: true },
  });
  for (const row of rows) {
    for (const line of row.lineItems as ReturnLineItem[]) held[line.line_item_index] += line.quantity;
  }
  return held;
}
