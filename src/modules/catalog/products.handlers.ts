import type { PartialAreaHandlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toProductResource, toVariantResource } from './catalog.mappers.js';
import { listProducts } from './products.list.js';
import { createProduct, deleteProduct, duplicateProduct, findProduct, updateProduct } from './products.service.js';
import { createVariant, deleteVariant, findVariant, updateVariant } from './variants.service.js';

export const productHandlers = {
  listProducts: async ({ query, ctx }) => ({ status: 200, body: await listProducts(ctx, query) }),
  createProduct: async ({ body, ctx }) => ({ status: 201, body: { data: toProductResource(await createProduct(ctx, body)) } }),
  getProduct: async ({ path, query, ctx }) => ({
    status: 200,
    body: { data: pickFields(toProductResource(await findProduct(ctx, ctx.db, path.id)), query.fields) },
  }),
  updateProduct: async ({ path, body, ctx }) => ({ status: 200, body: { data: toProductResource(await updateProduct(ctx, path.id, body)) } }),
  deleteProduct: async ({ path, ctx }) => {
    await deleteProduct(ctx, path.id);
    return { status: 204, body: undefined };
  },
  duplicateProduct: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toProductResource(await duplicateProduct(ctx, path.id, body?.title)) },
  }),
  createVariant: async ({ path, body, ctx }) => ({ status: 201, body: { data: toVariantResource(await createVariant(ctx, path.id, body)) } }),
  getVariant: async ({ path, ctx }) => ({ status: 200, body: { data: toVariantResource(await findVariant(ctx, ctx.db, path.id)) } }),
  updateVariant: async ({ path, body, ctx }) => ({ status: 200, body: { data: toVariantResource(await updateVariant(ctx, path.id, body)) } }),
  deleteVariant: async ({ path, ctx }) => {
    await deleteVariant(ctx, path.id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'catalog'>;
