import type { Tx } from '../../db/client.js';

/**
 * The discounts area's hand-written statements (tagged raw SQL, values bound): the row lock, the guarded use count
 * and the release of an order's uses, which one Prisma call cannot express. Each runs in the caller's transaction.
 */

/** Locks the project's discount row until the transaction ends (a missing row locks nothing). */
export async function lockDiscountRow(tx: Tx, projectId: string, id: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM discounts WHERE id = ${id} AND project_id = ${projectId} FOR UPDATE`;
}

/**
 * The ids among `ids` of the project's discounts that still exist, each held until commit against a delete (FOR KEY
 * SHARE: a use counted or another completion's share does not wait; lockDiscountRow, a delete's lock, does).
 */
export async function keepDiscountRows(tx: Tx, projectId: string, ids: string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM discounts WHERE project_id = ${projectId} AND id = ANY(${[...new Set(ids)].sort()})
    ORDER BY id FOR KEY SHARE`;
  return new Set(rows.map((row) => row.id));
}

/**
 * Raises an active code's `times_used` by one while it is below `usage_limit`, holding the row's lock until commit;
 * whether it was raised (false: used up or archived).
 */
export async function raiseTimesUsed(tx: Tx, projectId: string, id: string): Promise<boolean> {
  const raised = await tx.$queryRaw<Array<{ id: string }>>`
    UPDATE discounts SET times_used = times_used + 1
    WHERE id = ${id} AND project_id = ${projectId} AND status = 'active'
      AND (usage_limit IS NULL OR times_used < usage_limit)
    RETURNING id`;
  return raised.length > 0;
}

/** Lowers a limited code's `times_used` by one, never below 0 (a code without limits is not locked). */
export async function lowerTimesUsed(tx: Tx, projectId: string, id: string): Promise<void> {
  await tx.$executeRaw`UPDATE discounts SET times_used = GREATEST(times_used - 1, 0)
    WHERE id = ${id} AND project_id = ${projectId} AND kind = 'code'
      AND (usage_limit IS NOT NULL OR usage_limit_per_customer IS NOT NULL)`;
}

/** Marks the order's unreleased redemptions released; the discounts they used. */
export async function releaseOrderRedemptions(tx: Tx, projectId: string, orderId: string): Promise<string[]> {
  const released = await tx.$queryRaw<Array<{ discount_id: string }>>`
    UPDATE discount_redemptions SET released_at = now()
    WHERE order_id = ${orderId} AND project_id = ${projectId} AND released_at IS NULL
    RETURNING discount_id`;
  return released.map((row) => row.discount_id);
}
