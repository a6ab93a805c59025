import type { operations } from '../../generated/openapi.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { filterInstantOf } from '../../shared/instants.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { sql, type PageSource } from '../../shared/sql-list.js';
import type { ProductResource } from './catalog.mappers.js';
import { customerPricesOf, pricedCustomer, setCustomerPrices, type ResolvedPrices } from './customer-prices.js';
import { productList, type ProductJsonRow } from './products.statements.js';

export type ProductListQuery = NonNullable<operations['listProducts']['parameters']['query']>;

const SORTS: SortColumns<'listProducts'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  title: [{ field: 'title', kind: 'string' }],
};

const parsed = (row: ProductJsonRow) => JSON.parse(row.json) as ProductResource;

/**
 * A page of the project's live products matching the filters, with variants and collection ids; storefronts get
 * active ones only, in the storefront view (no merchant-only fields); a signed-in customer also their prices
 * (customer_price). PostgreSQL writes each product's JSON (products.statements.ts), kept in the process while its
 * rows do not change: the page sends those texts as they are, and parses them only to cut them to `fields` or to
 * add a customer's prices.
 */
export async function listProducts(ctx: Ctx, query: ProductListQuery) {
  const view = isStorefront(ctx) ? 'storefront' : 'merchant';
  const source = productList(
    ctx.db,
    view,
    ctx.project.id,
    [
      sql`deleted_at IS NULL`,
      query.status !== undefined && sql`status = ${query.status}`,
      query.product_type !== undefined && sql`product_type = ${query.product_type}`,
      query.vendor !== undefined && sql`vendor = ${query.vendor}`,
      query.tag !== undefined && sql`tags @> ARRAY[${query.tag}]::text[]`,
      query.collection_id !== undefined &&
        sql`EXISTS (SELECT 1 FROM collection_products WHERE product_id = products.id AND collection_id = ${query.collection_id})`,
      query.created_after !== undefined && sql`created_at > ${filterInstantOf(query.created_after)}`,
      isStorefront(ctx) && sql`status = 'active'`,
    ],
    ctx.caches?.productJson,
  );
  const cacheTotals = { list: 'products', tables: ['products', 'collection_products'] };
  if (!pricedCustomer(ctx)) {
    return listPage(ctx, { source, sorts: SORTS, map: parsed, json: (row) => row.json, query, cacheTotals });
  }
  // A signed-in customer's page: the prices of the rows read are resolved before they are mapped (and cut to
  // `fields`), so the page is encoded once like any other.
  type PricedRow = ProductJsonRow & { product: ProductResource };
  let prices: ResolvedPrices | null = null; // of the rows just read: listPage maps each read right after it
  const priced: PageSource<PricedRow> = {
    count: () => source.count(),
    fetch: async (args) => {
      const rows = (await source.fetch(args)).map((row) => ({ ...row, product: parsed(row) }));
      prices = await customerPricesOf(
        ctx,
        rows.map((row) => row.product),
      );
      return rows;
    },
  };
  const map = ({ product }: PricedRow) => (prices ? setCustomerPrices(product, prices) : product);
  return listPage(ctx, { source: priced, sorts: SORTS, map, query, cacheTotals });
}
