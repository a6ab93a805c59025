import type { operations } from '../../generated/openapi.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { sql, type PageSource } from '../../shared/sql-list.js';
import { productForView, toProductResource, type ShownProduct } from './catalog.mappers.js';
import { customerPricesOf, pricedCustomer, setCustomerPrices, type ResolvedPrices } from './customer-prices.js';
import { productList } from './products.statements.js';

export type ProductListQuery = NonNullable<operations['listProducts']['parameters']['query']>;

const SORTS: SortColumns<'listProducts'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  title: [{ field: 'title', kind: 'string' }],
};

/**
 * A page of the project's live products matching the filters, with variants and collection ids; storefronts get
 * active ones only, in the storefront view (no merchant-only fields); a signed-in customer also their prices
 * (customer_price).
 */
export async function listProducts(ctx: Ctx, query: ProductListQuery) {
  const source = productList(ctx.db, [
    sql`project_id = ${ctx.project.id}`,
    sql`deleted_at IS NULL`,
    query.status !== undefined && sql`status = ${query.status}`,
    query.product_type !== undefined && sql`product_type = ${query.product_type}`,
    query.vendor !== undefined && sql`vendor = ${query.vendor}`,
    query.tag !== undefined && sql`tags @> ARRAY[${query.tag}]::text[]`,
    query.collection_id !== undefined &&
      sql`EXISTS (SELECT 1 FROM collection_products WHERE product_id = products.id AND collection_id = ${query.collection_id})`,
    query.created_after !== undefined && sql`created_at > ${new Date(query.created_after)}`,
    isStorefront(ctx) && sql`status = 'active'`,
  ]);
  const view = isStorefront(ctx) ? 'storefront' : 'merchant';
  const cacheTotals = { list: 'products', tables: ['products', 'collection_products'] };
  const toResource = (row: ShownProduct) => productForView(toProductResource(row), view);
  if (!pricedCustomer(ctx)) return listPage(ctx, { source, sorts: SORTS, map: toResource, query, cacheTotals });
  // A signed-in customer's page: the prices of the rows read are resolved before they are mapped (and cut to
  // `fields`), so the page is encoded once like any other.
  let prices: ResolvedPrices | null = null; // of the rows just read: listPage maps each read right after it
  const priced: PageSource<ShownProduct> = {
    count: () => source.count(),
    fetch: async (args) => {
      const rows = await source.fetch(args);
      prices = await customerPricesOf(ctx, rows);
      return rows;
    },
  };
  const map = (row: ShownProduct) => (prices ? setCustomerPrices(toResource(row), prices) : toResource(row));
  return listPage(ctx, { source: priced, sorts: SORTS, map, query, cacheTotals });
}
