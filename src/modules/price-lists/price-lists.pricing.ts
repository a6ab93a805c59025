import type { Database, Tx } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { equalsIgnoringCase } from '../../shared/escape-like.js';
import type { CustomerPriceKeys } from '../../shared/table-version-cache.js';
import { groupPriceKeys } from '../customer-groups/index.js';
import { listRowsWithPrices } from './price-lists.sql.js';
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

/**
 * The price keys of the companies the customer is a contact of: a contact linked to it (`customer_id`), or, only
 * when the customer's e-mail is verified, a contact with its e-mail (case-insensitive).
 */
async function companyPriceKeys(
  db: Database | Tx,
  projectId: string,
  customer: { id: string; email: string; emailVerified: boolean },
): Promise<string[]> {
  // An e-mail proves nothing until the customer verified it: anyone can register a contact's address. Prisma's
  // insensitive equals is an ILIKE: escaped, so _ and % in the address match only themselves.
  const email = equalsIgnoringCase(customer.email);
  const contactOf = customer.emailVerified
    ? { OR: [{ customerId: customer.id }, { email }] }
    : { customerId: customer.id };
  const companies = await db.company.findMany({
    where: {
      projectId,
      deletedAt: null,
      activePriceKey: { not: null },
      contacts: { some: contactOf },
    },
    select: { activePriceKey: true },
  });
  return companies.map((company) => company.activePriceKey!);
}

/** The project's lists with these slugs, each with its prices of these variants only: one statement. */
async function listsWithPrices(
  db: Database | Tx,
  projectId: string,
  slugs: string[],
  variantIds: string[],
): Promise<PricingList[]> {
  const rows = await listRowsWithPrices(db, projectId, slugs, variantIds);
  return rows.map((row) => {
    const tiers = new Map<string, Array<{ minQuantity: number; amount: number }>>();
    for (const [variantId, minQuantity, amount] of row.prices) {
      tiers.set(variantId, [...(tiers.get(variantId) ?? []), { minQuantity, amount }]);
    }
    return {
      id: row.id,
      slug: row.slug,
      currency: row.currency,
      status: row.status,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      allowsIncrease: row.allows_increase,
      tiers,
    };
  });
}

/** The tables a customer's price keys are read from (each carries the table_changed trigger). */
const PRICE_KEY_TABLES = [
  'customers',
  'customer_addresses',
  'customer_groups',
  'customer_group_members',
  'companies',
  'company_contacts',
] as const;

/** The tables the lists and their prices are read from (each carries the table_changed trigger). */
export const PRICE_LIST_TABLES = ['price_lists', 'price_list_prices'] as const;

/**
 * The price keys of the live customer of the project: its own active_price_key and those of its groups and
 * companies (see companyPriceKeys); null for an unknown or deleted customer. Two round trips: the customer, then its groups' and
 * companies' keys side by side.
 */
async function readPriceKeys(
  db: Database | Tx,
  projectId: string,
  customerId: string,
): Promise<CustomerPriceKeys | null> {
  const customer = await db.customer.findFirst({
    where: { id: customerId, projectId, deletedAt: null },
    include: { addresses: { select: { city: true, country: true } } },
  });
  if (!customer) return null;
  const [groupKeys, companyKeys] = await Promise.all([
    groupPriceKeys(db, customer),
    companyPriceKeys(db, projectId, customer),
  ]);
  return { own: customer.activePriceKey, shared: [...new Set([...groupKeys, ...companyKeys])] };
}

/**
 * The price keys the live customer of the project buys from (its own active_price_key; its groups' and
 * companies'); null for an unknown or deleted customer. With `cached` and the caches there, from
 * `caches.customerPriceKeys` (stale on commit of any write to the tables they are read from); else two round
 * trips. Reads inside a write's transaction pass `cached: false`, so they see that transaction's own changes.
 */
export async function customerPriceKeys(
  ctx: Ctx,
  db: Database | Tx,
  customerId: string,
  options: { cached: boolean },
): Promise<CustomerPriceKeys | null> {
  const read = () => readPriceKeys(db, ctx.project.id, customerId);
  return options.cached && ctx.caches
    ? ctx.caches.customerPriceKeys.get(ctx.project.id, customerId, PRICE_KEY_TABLES, read)
    : read();
}

/**
 * The lists these price keys name (the own key's list; the shared keys' lists), each with its prices for
 * `variantIds` only, in one statement. A key naming no list of the project is left out.
 */
export async function pricingForKeys(
  ctx: Ctx,
  db: Database | Tx,
  keys: CustomerPriceKeys | null,
  variantIds: readonly string[],
): Promise<CustomerPricing> {
  if (!keys || variantIds.length === 0) return NO_PRICING;
  const shared = new Set(keys.shared);
  const slugs = [...new Set([...(keys.own ? [keys.own] : []), ...shared])];
  if (slugs.length === 0) return NO_PRICING;
  const lists = await listsWithPrices(db, ctx.project.id, slugs, [...new Set(variantIds)]);
  return {
    customerList: lists.find((list) => list.slug === keys.own) ?? null,
    sharedLists: lists.filter((list) => shared.has(list.slug)),
  };
}

/** The lists the live customer of the project buys from, read in `db` (see customerPriceKeys, pricingForKeys). */
export async function customerPricing(
  ctx: Ctx,
  db: Database | Tx,
  customerId: string,
  variantIds: readonly string[],
): Promise<CustomerPricing> {
  if (variantIds.length === 0) return NO_PRICING;
  return pricingForKeys(ctx, db, await customerPriceKeys(ctx, db, customerId, { cached: false }), variantIds);
}

/** When resolution over these lists can next change with the time alone: the first starts_at or ends_at after `now` (ms; Infinity when none). */
export function nextPriceChangeMs(pricing: CustomerPricing, now: Date): number {
  let next = Infinity;
  for (const list of [...(pricing.customerList ? [pricing.customerList] : []), ...pricing.sharedLists]) {
    for (const moment of [list.startsAt, list.endsAt]) {
      if (moment && moment > now) next = Math.min(next, moment.getTime());
    }
  }
  return next;
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
