import type { Tx } from '../../db/client.js';
import type { DraftLineItem } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { customerPricing, priceFor, type CustomerPricing } from '../price-lists/index.js';

const NO_PRICING: CustomerPricing = { customerList: null, sharedLists: [] };

/** The price lists the draft's customer buys from, with their prices of `variantIds`; none without a customer. */
export async function pricingOf(
  ctx: Ctx,
  tx: Tx,
  customerId: string | null,
  variantIds: string[],
): Promise<CustomerPricing> {
  return customerId ? customerPricing(ctx, tx, customerId, variantIds) : NO_PRICING;
}

/**
 * The items with their unit prices resolved again for the customer's lists as they are now, each at its
 * own quantity, from the base price captured when it was added. Custom items come back unchanged.
 */
export async function repriceItems(
  ctx: Ctx,
  tx: Tx,
  draft: { customerId: string | null; currency: string },
  items: DraftLineItem[],
): Promise<DraftLineItem[]> {
  const priced = items.filter((item) => !item.isCustom && item.variantId !== null && item.basePrice !== null);
  if (priced.length === 0) return items;
  const pricing = await pricingOf(
    ctx,
    tx,
    draft.customerId,
    priced.map((item) => item.variantId!),
  );
  const now = new Date();
  return items.map((item) => {
    if (item.isCustom || item.variantId === null || item.basePrice === null) return item;
    const variant = { id: item.variantId, price: Number(item.basePrice), salePrice: null };
    const resolved = priceFor(pricing, variant, item.quantity, draft.currency, now);
    return { ...item, unitPrice: BigInt(resolved.unitPrice), priceListId: resolved.priceListId };
  });
}

/** Stores the unit price and list of each item whose price changed between `before` and `after` (same ids, same order). */
export async function savePrices(tx: Tx, before: DraftLineItem[], after: DraftLineItem[]): Promise<void> {
  for (const [index, item] of after.entries()) {
    const old = before[index];
    if (old.unitPrice === item.unitPrice && old.priceListId === item.priceListId) continue;
    await tx.draftLineItem.update({
      where: { id: item.id },
      data: { unitPrice: item.unitPrice, priceListId: item.priceListId },
    });
  }
}
