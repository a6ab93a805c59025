import type { Database, Tx } from '../../db/client.js';

/**
 * The price lists' hand-written statements (tagged raw SQL, values bound): the set-based writes of up to 1,000
 * prices in one statement each, and the storefront's read of a customer's lists with their prices in one.
 */

/** One stored price, as the statements return it. */
export interface PriceRowSql {
  id: string;
  price_list_id: string;
  variant_id: string;
  min_quantity: number;
  amount: number;
  created_at: Date;
  updated_at: Date;
}

/** A price to set: the variant, from which quantity, the amount in minor units. */
export interface PriceEntry {
  id: string;
  variantId: string;
  minQuantity: number;
  amount: number;
}

/** Inserts the prices of the list, replacing the amount of those it has (same variant and quantity); returns them all. */
export function upsertPriceRows(tx: Tx, priceListId: string, entries: PriceEntry[]): Promise<PriceRowSql[]> {
  return tx.$queryRaw<PriceRowSql[]>`
    INSERT INTO price_list_prices (id, price_list_id, variant_id, min_quantity, amount, updated_at)
    SELECT id, ${priceListId}, variant_id, min_quantity, amount, now()
      FROM unnest(${entries.map((e) => e.id)}::text[], ${entries.map((e) => e.variantId)}::text[],
                  ${entries.map((e) => e.minQuantity)}::int[], ${entries.map((e) => e.amount)}::int[])
           AS t(id, variant_id, min_quantity, amount)
    ON CONFLICT (price_list_id, variant_id, min_quantity)
      DO UPDATE SET amount = EXCLUDED.amount, updated_at = EXCLUDED.updated_at
    RETURNING id, price_list_id, variant_id, min_quantity, amount, created_at, updated_at`;
}

/** Deletes the list's prices of these variants from these quantities; answers how many existed. */
export function deletePriceRows(
  tx: Tx,
  priceListId: string,
  entries: Array<{ variantId: string; minQuantity: number }>,
): Promise<number> {
  return tx.$executeRaw`
    DELETE FROM price_list_prices p
     USING unnest(${entries.map((e) => e.variantId)}::text[], ${entries.map((e) => e.minQuantity)}::int[])
           AS t(variant_id, min_quantity)
     WHERE p.price_list_id = ${priceListId} AND p.variant_id = t.variant_id AND p.min_quantity = t.min_quantity`;
}

/** A price list with its prices of the variants asked about. */
export interface ListRowSql {
  id: string;
  slug: string;
  currency: string;
  status: string;
  starts_at: Date | null;
  ends_at: Date | null;
  allows_increase: boolean;
  /** [variant_id, min_quantity, amount] of each price of the variants asked about */
  prices: Array<[string, number, number]>;
}

/** The project's lists with these slugs, each with its prices of these variants only. */
export function listRowsWithPrices(
  db: Database | Tx,
  projectId: string,
  slugs: string[],
  variantIds: string[],
): Promise<ListRowSql[]> {
  return db.$queryRaw<ListRowSql[]>`
    SELECT l.id, l.slug, l.currency, l.status, l.starts_at, l.ends_at, l.allows_increase,
           COALESCE(json_agg(json_build_array(p.variant_id, p.min_quantity, p.amount)) FILTER (WHERE p.id IS NOT NULL), '[]') AS prices
      FROM price_lists l
      LEFT JOIN price_list_prices p ON p.price_list_id = l.id AND p.variant_id = ANY(${variantIds}::text[])
     WHERE l.project_id = ${projectId} AND l.slug = ANY(${slugs}::text[])
     GROUP BY l.id`;
}
