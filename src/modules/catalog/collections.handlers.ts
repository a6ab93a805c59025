import type { Handlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import {
  addProducts, createCollection, deleteCollection, findCollection, listCollections, removeProduct, toCollectionResource, updateCollection,
} from './collections.service.js';
import { createFile, findFile, toFileResource } from './files.service.js';

export const collectionHandlers = {
  listCollections: async ({ query, caller, deps }) => {
    const { rows, pagination } = await listCollections(deps.db, caller.project, query);
    return { status: 200, body: { data: rows.map((row) => pickFields(toCollectionResource(row), query.fields)), pagination } };
  },
  createCollection: async ({ body, caller, deps }) => ({
    status: 201,
    body: { data: toCollectionResource(await createCollection(deps.db, caller, body)) },
  }),
  getCollection: async ({ path, query, caller, deps }) => ({
    status: 200,
    body: { data: pickFields(toCollectionResource(await findCollection(deps.db, caller.project.id, path.id)), query.fields) },
  }),
  updateCollection: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toCollectionResource(await updateCollection(deps.db, caller, path.id, body)) },
  }),
  deleteCollection: async ({ path, caller, deps }) => {
    await deleteCollection(deps.db, caller, path.id);
    return { status: 204, body: undefined };
  },
  addCollectionProducts: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toCollectionResource(await addProducts(deps.db, caller, path.id, body.product_ids)) },
  }),
  removeCollectionProduct: async ({ path, caller, deps }) => {
    await removeProduct(deps.db, caller, path.id, path.product_id);
    return { status: 204, body: undefined };
  },
  createFile: async ({ body, caller, deps }) => ({
    status: 201,
    body: { data: toFileResource(await createFile(deps.db, caller.project.id, body)) },
  }),
  getFile: async ({ path, caller, deps }) => ({
    status: 200,
    body: { data: toFileResource(await findFile(deps.db, caller.project.id, path.id)) },
  }),
} satisfies Pick<
  Handlers,
  | 'listCollections' | 'createCollection' | 'getCollection' | 'updateCollection' | 'deleteCollection'
  | 'addCollectionProducts' | 'removeCollectionProduct' | 'createFile' | 'getFile'
>;
