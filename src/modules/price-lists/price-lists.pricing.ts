import type { Database, Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { groupsOfCustomerWhere } from '../customer-groups/index.js';
import { resolvePrice, type CandidateList, type ResolvedPrice } from './resolve-price.js';

/** The price lists a customer buys from, with their prices for the variants asked about. */
export interface CustomerPricing {
  customerList: PricingList | null;
  sharedLists: PricingList[];
}

interface PricingList extends Omit<CandidateList, 'tiers'> {
  /** variant id -> its tiers in this list */
  tiers: Map<string, Array<{ minQuantity: number; amount: number }>>;
}

/** A variant as pricing reads it. */
export interface PricedVariant {
  id: string;
  price: number;
  salePrice: number | null;
}

const NO_PRICING: CustomerPricing = { customerList: null, sharedLists: [] };

/** The price keys of the customer's groups (manual and automatic, as membership is now) and of the companies it is a contact of (by e-mail). */
async function sharedKeys(ctx: Ctx, db: Database | Tx, customerId: string, email: string): Promise<string[]> {
  const [groups, companies] = await Promise.all([
    db.customerGroup.findMany({
      where: {
        AND: [await groupsOfCustomerWhere(ctx, customerId)],
        projectId: ctx.project.id,
        deletedAt: null,
        activePriceKey: { not: null },
      },
      select: { activePriceKey: true },
    }),
    db.company.findMany({
      where: {
        projectId: ctx.project.id,
        deletedAt: null,
        activePriceKey: { not: null },
        contacts: { some: { email: { equals: email, mode: 'insensitive' } } },
      },
      select: { activePriceKey: true },
    }),
  ]);
  return [...groups, ...companies].map((row) => row.activePriceKey!);
}

/**
 * The lists the live customer of the project buys from (its own key's list; its groups' and companies'
 * lists), each with its prices for `variantIds` only. A key naming no list of the project is left out; an
 * unknown or deleted customer buys from none.
 */
export async function customerPricing(
  ctx: Ctx,
  db: Database | Tx,
  customerId: string,
  variantIds: readonly string[],
): Promise<CustomerPricing> {
  const customer = await db.customer.findFirst({
    where: { id: customerId, projectId: ctx.project.id, deletedAt: null },
    select: { activePriceKey: true, email: true },
  });
  if (!customer || variantIds.length === 0) return NO_PRICING;
  const shared = await sharedKeys(ctx, db, customerId, customer.email);
  const keys = new Set([...(customer.activePriceKey ? [customer.activePriceKey] : []), ...shared]);
  if (keys.size === 0) return NO_PRICING;
  const lists = await db.priceList.findMany({
    where: { projectId: ctx.project.id, slug: { in: [...keys] } },
    include: {
      prices: {
        where: { variantId: { in: [...new Set(variantIds)] } },
        select: { variantId: true, minQuantity: true, amount: true },
      },
    },
  });
  const pricingLists = lists.map((list): PricingList => {
    const tiers = new Map<string, Array<{ minQuantity: number; amount: number }>>();
    for (const price of list.prices) {
      const variantTiers = tiers.get(price.variantId) ?? [];
      variantTiers.push({ minQuantity: price.minQuantity, amount: price.amount });
      tiers.set(price.variantId, variantTiers);
    }
    return { ...list, tiers };
  });
  const sharedSet = new Set(shared);
  return {
    customerList: pricingLists.find((list) => list.slug === customer.activePriceKey) ?? null,
    sharedLists: pricingLists.filter((list) => sharedSet.has(list.slug)),
  };
}

const forVariant = (list: PricingList, variantId: string): CandidateList => ({
  ...list,
  tiers: list.tiers.get(variantId) ?? [],
});

/** The variant's resolved unit price for the customer's lists at this quantity and currency, now (see resolvePrice). */
export function priceFor(
  pricing: CustomerPricing,
  variant: PricedVariant,
  quantity: number,
  currency: string,
  now = new Date(),
): ResolvedPrice {
  return resolvePrice({
    basePrice: variant.salePrice ?? variant.price,
    quantity,
    currency,
    now,
    customerList: pricing.customerList && forVariant(pricing.customerList, variant.id),
    sharedLists: pricing.sharedLists.map((list) => forVariant(list, variant.id)),
  });
}
