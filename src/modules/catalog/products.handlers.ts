import type { PartialAreaHandlers } from '../../shared/contract.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { pickFields } from '../../shared/fields.js';
import { withMetafields } from '../metafields/index.js';
import { toProductResource, toVariantResource, type CatalogView } from './catalog.mappers.js';
import { withCustomerPrices, withCustomerVariantPrice } from './customer-prices.js';
import { listProducts } from './products.list.js';
import { createProduct, deleteProduct, duplicateProduct, shownProduct, updateProduct } from './products.service.js';
import { createVariant, deleteVariant, shownVariant, updateVariant } from './variants.service.js';

const viewOf = (ctx: Ctx): CatalogView => (isStorefront(ctx) ? 'storefront' : 'merchant');

export const productHandlers = {
  listProducts: async ({ query, ctx }) => {
    const page = await listProducts(ctx, query);
    return { status: 200, body: { ...page, data: await withMetafields(ctx, 'product', query, page.data) } };
  },
  createProduct: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toProductResource(await createProduct(ctx, body)) },
  }),
  getProduct: async ({ path, query, ctx }) => {
    const [priced] = await withCustomerPrices(ctx, [await shownProduct(ctx, path.id, viewOf(ctx))]);
    const product = pickFields(priced, query.fields);
    return { status: 200, body: { data: (await withMetafields(ctx, 'product', query, [product]))[0] } };
  },
  updateProduct: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toProductResource(await updateProduct(ctx, path.id, body)) },
  }),
  deleteProduct: async ({ path, ctx }) => {
    await deleteProduct(ctx, path.id);
    return { status: 204, body: undefined };
  },
  duplicateProduct: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toProductResource(await duplicateProduct(ctx, path.id, body?.title)) },
  }),
  createVariant: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toVariantResource(await createVariant(ctx, path.id, body)) },
  }),
  getVariant: async ({ path, query, ctx }) => {
    const variant = await withCustomerVariantPrice(ctx, await shownVariant(ctx, path.id, viewOf(ctx)));
    return { status: 200, body: { data: (await withMetafields(ctx, 'variant', query, [variant]))[0] } };
  },
  updateVariant: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toVariantResource(await updateVariant(ctx, path.id, body)) },
  }),
  deleteVariant: async ({ path, ctx }) => {
    await deleteVariant(ctx, path.id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'catalog'>;
