import type { operations } from '../../generated/openapi.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { pickFields } from '../../shared/fields.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { sql } from '../../shared/sql-list.js';
import { productForView, toProductResource, type ShownProduct } from './catalog.mappers.js';
import { pricedCustomer, withCustomerPrices } from './customer-prices.js';
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
  const list = { source, sorts: SORTS, map: (row: ShownProduct) => productForView(toProductResource(row), view) };
  const cacheTotals = { list: 'products', tables: ['products', 'collection_products'] };
  if (!pricedCustomer(ctx)) return listPage(ctx, { ...list, query, cacheTotals });
  // A signed-in customer's page: whole products first (prices need the variants), then cut to `fields`.
  const page = await listPage(ctx, { ...list, query: { ...query, fields: undefined }, cacheTotals });
  const data = await withCustomerPrices(ctx, page.data);
  return { ...page, data: data.map((product) => pickFields(product, query.fields)) };
}
