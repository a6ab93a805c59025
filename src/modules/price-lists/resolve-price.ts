/**
 * Price resolution: which unit price a customer pays for a variant at a quantity, in a currency. Pure: the
 * caller loads the lists the customer's keys name (price-lists.pricing.ts); the rule is documented in
 * openapi.yaml (the price-lists tag).
 */

/** A price list as resolution reads it, with its tiers for the variant being priced. */
export interface CandidateList {
  id: string;
  slug: string;
  currency: string;
  status: string;
  startsAt: Date | null;
  endsAt: Date | null;
  allowsIncrease: boolean;
  /** The list's prices for the variant: one per min_quantity. */
  tiers: ReadonlyArray<{ minQuantity: number; amount: number }>;
}

export interface PriceQuestion {
  /** The variant's own price: its sale price when set, else its price. */
  basePrice: number;
  quantity: number;
  currency: string;
  now: Date;
  /** The list the customer's own active_price_key names, if any. */
  customerList?: CandidateList | null;
  /** The lists of the customer's groups and companies. */
  sharedLists?: readonly CandidateList[];
}

export interface ResolvedPrice {
  unitPrice: number;
  basePrice: number;
  /** The list unitPrice comes from; null when it is the base price. */
  priceListId: string | null;
}

/** Whether the list is active, current at `now` (starts_at inclusive, ends_at exclusive) and in `currency`. */
export function listIsLive(list: CandidateList, currency: string, now: Date): boolean {
  return (
    list.status === 'active' &&
    list.currency === currency &&
    (list.startsAt === null || list.startsAt <= now) &&
    (list.endsAt === null || now < list.endsAt)
  );
}

/**
 * The list's price for the question, or null when it does not apply: not live, no tier with min_quantity at
 * most the quantity, or a price above the base price in a list that does not allow increases. Of the
 * tiers, the highest min_quantity not above the quantity wins.
 */
export function listPrice(list: CandidateList, question: PriceQuestion): number | null {
  if (!listIsLive(list, question.currency, question.now)) return null;
  let best: { minQuantity: number; amount: number } | undefined;
  for (const tier of list.tiers) {
    if (tier.minQuantity <= question.quantity && (!best || tier.minQuantity > best.minQuantity)) best = tier;
  }
  if (!best) return null;
  if (best.amount > question.basePrice && !list.allowsIncrease) return null;
  return best.amount;
}

/**
 * The unit price: the customer's own list when it applies; else the lowest price among the shared lists
 * that apply (equal prices: the smallest slug, so the answer does not depend on load order); else the base
 * price.
 */
export function resolvePrice(question: PriceQuestion): ResolvedPrice {
  const base = { unitPrice: question.basePrice, basePrice: question.basePrice, priceListId: null };
  if (question.customerList) {
    const own = listPrice(question.customerList, question);
    if (own !== null) return { ...base, unitPrice: own, priceListId: question.customerList.id };
  }
  let best: { amount: number; list: CandidateList } | undefined;
  for (const list of question.sharedLists ?? []) {
    const amount = listPrice(list, question);
    if (amount === null) continue;
    if (!best || amount < best.amount || (amount === best.amount && list.slug < best.list.slug))
      best = { amount, list };
  }
  return best ? { ...base, unitPrice: best.amount, priceListId: best.list.id } : base;
}
