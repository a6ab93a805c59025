import type { Handlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toProductResource, toVariantResource } from './catalog.mappers.js';
import { listVariantLevels, setInventoryLevel } from './inventory.service.js';
import { listProducts } from './products.list.js';
import { createProduct, deleteProduct, duplicateProduct, findProduct, updateProduct } from './products.service.js';
import { createVariant, deleteVariant, findVariant, updateVariant } from './variants.service.js';

export const catalogHandlers = {
  listProducts: async ({ query, caller, deps }) => {
    const { rows, pagination } = await listProducts(deps.db, caller.project, query);
    return { status: 200, body: { data: rows.map((row) => pickFields(toProductResource(row), query.fields)), pagination } };
  },
  createProduct: async ({ body, caller, deps }) => ({
    status: 201,
    body: { data: toProductResource(await createProduct(deps.db, caller, body)) },
  }),
  getProduct: async ({ path, query, caller, deps }) => ({
    status: 200,
    body: { data: pickFields(toProductResource(await findProduct(deps.db, caller.project.id, path.id)), query.fields) },
  }),
  updateProduct: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toProductResource(await updateProduct(deps.db, caller, path.id, body)) },
  }),
  deleteProduct: async ({ path, caller, deps }) => {
    await deleteProduct(deps.db, caller, path.id);
    return { status: 204, body: undefined };
  },
  duplicateProduct: async ({ path, body, caller, deps }) => ({
    status: 201,
    body: { data: toProductResource(await duplicateProduct(deps.db, caller, path.id, body?.title)) },
  }),
  createVariant: async ({ path, body, caller, deps }) => ({
    status: 201,
    body: { data: toVariantResource(await createVariant(deps.db, caller, path.id, body)) },
  }),
  getVariant: async ({ path, caller, deps }) => ({
    status: 200,
    body: { data: toVariantResource(await findVariant(deps.db, caller.project.id, path.id)) },
  }),
  updateVariant: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toVariantResource(await updateVariant(deps.db, caller, path.id, body)) },
  }),
  deleteVariant: async ({ path, caller, deps }) => {
    await deleteVariant(deps.db, caller, path.id);
    return { status: 204, body: undefined };
  },
  setInventoryLevel: async ({ body, caller, deps }) => {
    const level = await setInventoryLevel(deps.db, caller, body);
    return {
      status: 200,
      body: { data: { variant_id: level.variantId, location_id: level.locationId, available: level.available, updated_at: level.updatedAt.toISOString() } },
    };
  },
  listVariantInventoryLevels: async ({ path, caller, deps }) => {
    const levels = await listVariantLevels(deps.db, caller.project.id, path.id);
    return {
      status: 200,
      body: { data: levels.map((l) => ({ location_id: l.locationId, available: l.available, updated_at: l.updatedAt.toISOString() })) },
    };
  },
} satisfies Pick<
  Handlers,
  | 'setInventoryLevel' | 'listVariantInventoryLevels'
  | 'listProducts' | 'createProduct' | 'getProduct' | 'updateProduct' | 'deleteProduct' | 'duplicateProduct'
  | 'createVariant' | 'getVariant' | 'updateVariant' | 'deleteVariant'
>;
