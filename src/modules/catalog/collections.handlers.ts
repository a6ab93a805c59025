import type { PartialAreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { withMetafields } from '../metafields/index.js';
import { toCollectionResource, toFileResource } from './catalog.mappers.js';
import {
  addProducts,
  createCollection,
  deleteCollection,
  findCollection,
  listCollections,
  removeProduct,
  updateCollection,
} from './collections.service.js';
import { createFile, findFile } from './files.service.js';

export const collectionHandlers = {
  listCollections: async ({ query, ctx }) => {
    const page = await listCollections(ctx, query);
    return { status: 200, body: { ...page, data: await withMetafields(ctx, 'collection', query, page.data) } };
  },
  createCollection: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toCollectionResource(await createCollection(ctx, body)) },
  }),
  getCollection: async ({ path, query, ctx }) => {
    const collection = pickFields(toCollectionResource(await findCollection(ctx, ctx.db, path.id)), query.fields);
    return { status: 200, body: { data: (await withMetafields(ctx, 'collection', query, [collection]))[0] } };
  },
  updateCollection: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCollectionResource(await updateCollection(ctx, path.id, body)) },
  }),
  deleteCollection: async ({ path, ctx }) => {
    await deleteCollection(ctx, path.id);
    return { status: 204, body: undefined };
  },
  addCollectionProducts: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCollectionResource(await addProducts(ctx, path.id, body.product_ids)) },
  }),
  removeCollectionProduct: async ({ path, ctx }) => {
    await removeProduct(ctx, path.id, path.product_id);
    return { status: 204, body: undefined };
  },
  createFile: async ({ body, ctx }) => ({ status: 201, body: { data: toFileResource(await createFile(ctx, body)) } }),
  getFile: async ({ path, ctx }) => ({ status: 200, body: { data: toFileResource(await findFile(ctx, path.id)) } }),
} satisfies PartialAreaHandlers<'catalog'>;
