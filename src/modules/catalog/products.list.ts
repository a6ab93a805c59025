import type { operations } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { pickFields } from '../../shared/fields.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { productForView, toProductResource, type ProductRow } from './catalog.mappers.js';
import { pricedCustomer, withCustomerPrices } from './customer-prices.js';
import { PRODUCT_INCLUDE } from './products.service.js';

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
  const where: Prisma.ProductWhereInput = {
    projectId: ctx.project.id,
    deletedAt: null,
    status: query.status,
    productType: query.product_type,
    vendor: query.vendor,
    tags: query.tag ? { has: query.tag } : undefined,
    collections: query.collection_id ? { some: { collectionId: query.collection_id } } : undefined,
    createdAt: query.created_after ? { gt: new Date(query.created_after) } : undefined,
    AND: isStorefront(ctx) ? [{ status: 'active' }] : undefined,
  };
  const model = {
    findMany: (args: {
      where: Prisma.ProductWhereInput;
      orderBy: Prisma.ProductOrderByWithRelationInput[];
      take: number;
    }) => ctx.db.product.findMany({ ...args, include: PRODUCT_INCLUDE }),
    count: (args: { where: Prisma.ProductWhereInput }) => ctx.db.product.count(args),
  };
  const view = isStorefront(ctx) ? 'storefront' : 'merchant';
  const list = { model, where, sorts: SORTS, map: (row: ProductRow) => productForView(toProductResource(row), view) };
  const cacheTotals = { list: 'products', tables: ['products', 'collection_products'] };
  if (!pricedCustomer(ctx)) return listPage(ctx, { ...list, query, cacheTotals });
  // A signed-in customer's page: whole products first (prices need the variants), then cut to `fields`.
  const page = await listPage(ctx, { ...list, query: { ...query, fields: undefined }, cacheTotals });
  const data = await withCustomerPrices(ctx, page.data);
  return { ...page, data: data.map((product) => pickFields(product, query.fields)) };
}
