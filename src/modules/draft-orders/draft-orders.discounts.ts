import type { Tx } from '../../db/client.js';
import type { DraftLineItem, DraftOrder } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
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
import { draftForChange, findDraftOrder, itemsOf, saveDraft, withTotals } from './draft-orders.write.js';

/** The draft's basket as discounts read it: its items by position (custom ones without a product), shipping, customer. */
const basketOfDraft = (draft: DraftOrder, items: DraftLineItem[]) => ({
  currency: draft.currency,
  customerId: draft.customerId,
  shippingCost: Number(draft.shippingCost),
  lines: items.map((item) => ({
    productId: item.productId,
    quantity: item.quantity,
    unitPrice: Number(item.unitPrice),
  })),
});

/**
 * withTotals after the draft's reductions, priced as a checkout's (discounts.pricing.ts, read in `tx`): the
 * project's live automatic promotions and the codes the draft holds; its manual discount after them.
 */
export async function totalled(
  ctx: Ctx,
  tx: Tx,
  draft: DraftOrder,
  items: DraftLineItem[],
  field = 'discount',
): Promise<DraftOrder> {
  const discounted = await discountBasket(ctx, tx, basketOfDraft(draft, items), draft.discountCodes);
  return withTotals(ctx, draft, items, field, discounted);
}

/**
 * Applies a discount code to an open or sent draft and recomputes its totals under the draft's lock (openapi.yaml,
 * applyDraftOrderDiscountCode): 422 / 409 as codeToApply and requireApplied say, nothing written then; a code
 * already applied answers the draft unchanged.
 */
export async function applyDraftCode(ctx: Ctx, id: string, code: string): Promise<DraftOrder> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await draftForChange(ctx, tx, id);
    const row = await codeToApply(ctx, tx, code, customerKeyOf(before.customerId, before.customerEmail));
    if (before.discountCodes.some((held) => held.toLowerCase() === row.codeKey)) return before;
    const items = await itemsOf(tx, id);
    const next = { ...before, discountCodes: [...before.discountCodes, row.code!] };
    const discounted = await discountBasket(ctx, tx, basketOfDraft(next, items), next.discountCodes);
    requireApplied(discounted, row);
    return saveDraft(tx, ctx, before, withTotals(ctx, next, items, 'code', discounted), {
      what: `discount code ${row.code} applied`,
    });
  });
}

/** Removes a code from an open or sent draft (404 when it does not hold it) and recomputes its totals. */
export async function removeDraftCode(ctx: Ctx, id: string, code: string): Promise<DraftOrder> {
  return writeTx(ctx, {}, async (tx) => {
    const before = await draftForChange(ctx, tx, id);
    const kept = before.discountCodes.filter((held) => held.toLowerCase() !== code.toLowerCase());
    if (kept.length === before.discountCodes.length)
      throw notFound('This discount code is not applied to the draft order.');
    const after = await totalled(ctx, tx, { ...before, discountCodes: kept }, await itemsOf(tx, id), 'code');
    return saveDraft(tx, ctx, before, after, { what: `discount code ${code} removed` });
  });
}

const applicationsOf = (draft: DraftOrder) => draft.discountApplications as DiscountApplicationResource[];

/** Whether completing the draft counts or records uses: it holds a reduction of a code or a promotion. */
export const redeemsDiscounts = (draft: DraftOrder): boolean =>
  applicationsOf(draft).some((applied) => applied.source !== 'manual');

/** The rows of the discounts and promotions the draft's reductions name (a deleted one has none). */
const rowsOf = (ctx: Ctx, tx: Tx, draft: DraftOrder) =>
  tx.discount.findMany({
    where: { id: { in: applicationsOf(draft).flatMap((a) => (a.id ? [a.id] : [])) }, projectId: ctx.project.id },
  });

/**
 * Counts one use of each code among the draft's reductions, in the caller's transaction, after the draft's lock
 * (locks: the draft, the codes in id order, then the variants and the order counter, as a checkout's completion
 * takes them): redeemCodes, 409 usage_limit_reached (and the caller rolls back whole) when one is used up or
 * archived; a code deleted since it was applied is refused alike. The draft is not priced again: its order copies
 * the amounts the draft shows.
 */
export async function countDraftUses(ctx: Ctx, tx: Tx, draftId: string): Promise<void> {
  const draft = await findDraftOrder(ctx, tx, draftId, true);
  // Held against a delete first, so the rows read next stay until the order is placed.
  await holdDiscounts(tx, ctx, applicationsOf(draft));
  const rows = await rowsOf(ctx, tx, draft);
  const gone = applicationsOf(draft).find((a) => a.source === 'code' && !rows.some((row) => row.id === a.id));
  if (gone) {
    throw new AppError(
      'usage_limit_reached',
      `The code ${gone.code} was deleted since it was applied and can no longer be used: remove it from the draft order and complete it again.`,
      { field: 'code' },
    );
  }
  const codes = rows.filter((row) => row.kind === 'code');
  await redeemCodes(tx, ctx, codes, customerKeyOf(draft.customerId, draft.customerEmail));
}

/** Gives back the uses countDraftUses counted while a payment of the draft waits for another step (no order yet). */
export async function giveBackDraftUses(ctx: Ctx, tx: Tx, draftId: string): Promise<void> {
  const draft = await findDraftOrder(ctx, tx, draftId, true);
  await giveBackCodes(
    tx,
    ctx,
    (await rowsOf(ctx, tx, draft)).filter((row) => row.kind === 'code'),
  );
}

/**
 * Records the order's use of each code and promotion of the draft (what each took off), in the completion's
 * transaction; a promotion deleted since keeps its reduction on the order with no use recorded.
 */
export async function recordDraftRedemptions(ctx: Ctx, tx: Tx, draft: DraftOrder, orderId: string): Promise<void> {
  const rows = await rowsOf(ctx, tx, draft);
  const kept = applicationsOf(draft).filter((a) => a.source === 'manual' || rows.some((row) => row.id === a.id));
  await recordRedemptions(tx, ctx, orderId, kept, customerKeyOf(draft.customerId, draft.customerEmail));
}
