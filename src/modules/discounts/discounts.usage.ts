import type { Tx } from '../../db/client.js';
import type { Discount } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import type { DiscountApplicationResource } from './discounts.mappers.js';
import { usageLimitReached } from './discounts.pricing.js';
import { keepDiscountRows, lowerTimesUsed, raiseTimesUsed, releaseOrderRedemptions } from './discounts.sql.js';

/** Whether a code's uses are limited (in total or per customer): only those are counted under the code's row lock. */
export const isLimited = (code: Pick<Discount, 'usageLimit' | 'usageLimitPerCustomer'>): boolean =>
  code.usageLimit !== null || code.usageLimitPerCustomer !== null;

/**
 * Counts one use of each limited code, in the caller's (the order's) transaction, codes in id order so two orders
 * cannot deadlock: `times_used` rises only while below `usage_limit` (the UPDATE takes the code's row lock until
 * commit, so concurrent orders queue and each sees the count the one before it left); then, under that lock, the
 * customer's earlier uses are counted against `usage_limit_per_customer`. A code without limits takes no lock (its
 * uses are its redemptions, as a promotion's are: a popular code never queues the checkouts using it); it only
 * has to be active still. 409 usage_limit_reached otherwise, and the caller's transaction rolls back whole.
 */
export async function redeemCodes(tx: Tx, ctx: Ctx, codes: Discount[], customerKey: string | null): Promise<void> {
  for (const code of [...codes].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (!isLimited(code)) {
      if (code.status !== 'active') throw usageLimitReached(code);
      continue;
    }
    if (!(await raiseTimesUsed(tx, ctx.project.id, code.id))) throw usageLimitReached(code);
    if (customerKey && code.usageLimitPerCustomer !== null) {
      const used = await tx.discountRedemption.count({
        where: { discountId: code.id, customerKey, releasedAt: null },
      });
      if (used >= code.usageLimitPerCustomer) throw usageLimitReached(code);
    }
  }
}

/** The codes and promotions among a basket's reductions (a manual discount names none). */
const namedIn = (applications: DiscountApplicationResource[]) =>
  applications.filter((applied) => applied.source !== 'manual' && applied.id);

/**
 * Holds the codes and promotions the reductions name against a delete until the caller's transaction ends (an order
 * being placed with them: the delete waits, then finds the order's use and archives); answers the ids still there.
 * A use counted or another order's hold does not wait.
 */
export function holdDiscounts(tx: Tx, ctx: Ctx, applications: DiscountApplicationResource[]): Promise<Set<string>> {
  return keepDiscountRows(
    tx,
    ctx.project.id,
    namedIn(applications).map((applied) => applied.id!),
  );
}

/**
 * Records the order's use of each code and promotion it got (what it took off), in the order's transaction, held
 * against a delete (holdDiscounts); one deleted before keeps its reduction on the order with no use recorded.
 */
export async function recordRedemptions(
  tx: Tx,
  ctx: Ctx,
  orderId: string,
  applications: DiscountApplicationResource[],
  customerKey: string | null,
): Promise<void> {
  const named = namedIn(applications);
  if (named.length === 0) return;
  const kept = await holdDiscounts(tx, ctx, named);
  const rows = named.filter((applied) => kept.has(applied.id!));
  if (rows.length === 0) return;
  await tx.discountRedemption.createMany({
    data: rows.map((applied) => ({
      id: newId('dred_'),
      projectId: ctx.project.id,
      discountId: applied.id!,
      orderId,
      customerKey: customerKey ?? orderId,
      amount: BigInt(applied.amount),
    })),
  });
}

/**
 * One use of each limited code given back (`times_used` down by one, never below 0; a code without limits has
 * nothing to give back but its redemption), codes in id order.
 */
export async function giveBackCodes(tx: Tx, ctx: Ctx, codes: Array<Pick<Discount, 'id'>>): Promise<void> {
  for (const id of codes.map((code) => code.id).sort()) {
    await lowerTimesUsed(tx, ctx.project.id, id);
  }
}

/**
 * Gives back the uses of a cancelled order, in the cancellation's transaction: its redemptions are marked released
 * and each limited code's `times_used` drops by one (under the code's row lock, as counting takes it).
 */
export async function releaseRedemptions(tx: Tx, ctx: Ctx, orderId: string): Promise<void> {
  const released = await releaseOrderRedemptions(tx, ctx.project.id, orderId);
  await giveBackCodes(
    tx,
    ctx,
    released.map((id) => ({ id })),
  );
}
