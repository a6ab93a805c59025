import type { Tx } from '../../db/client.js';
import type { Checkout, CheckoutLine } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import {
  codeToApply,
  customerKeyOf,
  discountBasket,
  giveBackCodes,
  holdDiscounts,
  recordRedemptions,
  redeemCodes,
  requireApplied,
  type DiscountApplicationResource,
} from '../discounts/index.js';
import { countDraftUses, giveBackDraftUses } from '../draft-orders/index.js';
import { awaitsAction, type CheckoutKey } from './checkout-access.js';
import { basketOfCheckout, withTotals } from './checkout-pricing.js';
import { checkoutForChange, linesOf, saveCheckout, type CheckoutWithLines } from './checkouts.service.js';

/**
 * Applies a discount code to the checkout and recomputes its totals, under the checkout's lock (openapi.yaml,
 * applyCheckoutDiscountCode): 422 / 409 as codeToApply and requireApplied say, nothing written then; a code
 * already applied answers the checkout unchanged.
 */
export async function applyCheckoutCode(ctx: Ctx, key: CheckoutKey, code: string): Promise<CheckoutWithLines> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await checkoutForChange(ctx, tx, key);
    const lines = await linesOf(tx, before.id);
    const row = await codeToApply(ctx, tx, code, customerKeyOf(before.customerId, before.email));
    if (before.discountCodes.some((held) => held.toLowerCase() === row.codeKey)) return { checkout: before, lines };
    const next = { ...before, discountCodes: [...before.discountCodes, row.code!] };
    const discounted = await discountBasket(ctx, tx, basketOfCheckout(next, lines), next.discountCodes);
    requireApplied(discounted, row);
    return { checkout: await saveCheckout(tx, withTotals(ctx, next, lines, 'code', discounted)), lines };
  });
}

/** Removes a code from the checkout (404 when it does not hold it) and recomputes its totals. */
export async function removeCheckoutCode(ctx: Ctx, key: CheckoutKey, code: string): Promise<CheckoutWithLines> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await checkoutForChange(ctx, tx, key);
    const kept = before.discountCodes.filter((held) => held.toLowerCase() !== code.toLowerCase());
    if (kept.length === before.discountCodes.length)
      throw notFound('This discount code is not applied to the checkout.');
    const lines = await linesOf(tx, before.id);
    const next = { ...before, discountCodes: kept };
    const discounted = await discountBasket(ctx, tx, basketOfCheckout(next, lines), kept);
    return { checkout: await saveCheckout(tx, withTotals(ctx, next, lines, 'code', discounted)), lines };
  });
}

/**
 * Inside the completion's lock and transaction, before anything is held or charged: the checkout's reductions
 * computed again (a promotion may have ended, a code expired) and its totals with them, then one use counted of
 * each code that applies (redeemCodes: 409 usage_limit_reached rolls the whole completion back). Answers the
 * checkout as it will be charged; a draft order's checkout is answered as is (its draft's totals stand).
 */
export async function redeemCheckoutDiscounts(
  ctx: Ctx,
  tx: Tx,
  checkout: Checkout,
  lines: CheckoutLine[],
): Promise<Checkout> {
  // A draft's checkout: its draft's amounts stand, and the draft's code uses are counted (its completion records them).
  if (checkout.draftOrderId) {
    await countDraftUses(ctx, tx, checkout.draftOrderId);
    return checkout;
  }
  let priced = checkout;
  // A payment waiting for its second step was started for the checkout's amount: it stands.
  if (!awaitsAction(checkout)) {
    // Priced again until every code and promotion it got is held against a delete (one deleted meanwhile is priced
    // out); twice more at most, after which one deleted keeps its reduction with no use recorded.
    for (let attempt = 0; attempt < 3; attempt++) {
      const discounted = await discountBasket(ctx, tx, basketOfCheckout(checkout, lines), checkout.discountCodes);
      priced = { ...withTotals(ctx, checkout, lines, 'lines', discounted), expiresAt: checkout.expiresAt };
      const applications = priced.discountApplications as DiscountApplicationResource[];
      const held = await holdDiscounts(tx, ctx, applications);
      if (applications.every((applied) => applied.source === 'manual' || !applied.id || held.has(applied.id))) break;
    }
    if (JSON.stringify(priced.discountApplications) !== JSON.stringify(checkout.discountApplications))
      priced = await saveCheckout(tx, priced);
  } else await holdDiscounts(tx, ctx, checkout.discountApplications as DiscountApplicationResource[]);
  await redeemCodes(tx, ctx, await codesOf(tx, priced), customerKeyOf(priced.customerId, priced.email));
  return priced;
}

/** The code rows of the checkout's applications. */
async function codesOf(tx: Tx, checkout: Checkout) {
  const ids = (checkout.discountApplications as DiscountApplicationResource[]).flatMap((applied) =>
    applied.source === 'code' && applied.id ? [applied.id] : [],
  );
  return ids.length ? tx.discount.findMany({ where: { id: { in: ids }, projectId: checkout.projectId } }) : [];
}

/**
 * Gives back the uses redeemCheckoutDiscounts counted when the payment waits for another step (no order yet): the
 * second completion counts them again.
 */
export async function returnCheckoutUses(ctx: Ctx, tx: Tx, checkout: Checkout): Promise<void> {
  if (checkout.draftOrderId) {
    await giveBackDraftUses(ctx, tx, checkout.draftOrderId);
    return;
  }
  await giveBackCodes(tx, ctx, await codesOf(tx, checkout));
}

/**
 * Records the order's uses of the checkout's codes and promotions (after redeemCheckoutDiscounts counted them); a
 * draft's checkout records none: its draft's completion did.
 */
export async function recordCheckoutRedemptions(ctx: Ctx, tx: Tx, checkout: Checkout, orderId: string): Promise<void> {
  if (checkout.draftOrderId) return;
  const applications = checkout.discountApplications as DiscountApplicationResource[];
  await recordRedemptions(tx, ctx, orderId, applications, customerKeyOf(checkout.customerId, checkout.email));
}
