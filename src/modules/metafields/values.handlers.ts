import type { PartialAreaHandlers } from '../../shared/contract.js';
import type { Ctx } from '../../shared/context.js';
import type { OwnerType } from './owners.js';
import { readValues, removeValue, writeValue, writeValues } from './values.service.js';

interface ValueInput<B = unknown> {
  path: { id: string; slug?: string };
  body: B;
  ctx: Ctx;
}

// The four value operations are the same for every owner type; these make one owner type's handlers.
const read =
  (ownerType: OwnerType) =>
  async ({ path, ctx }: ValueInput) => ({
    status: 200 as const,
    body: { data: await readValues(ctx, ownerType, path.id) },
  });
const writeAll =
  (ownerType: OwnerType) =>
  async ({ path, body, ctx }: ValueInput<Record<string, unknown>>) => ({
    status: 200 as const,
    body: { data: await writeValues(ctx, ownerType, path.id, body) },
  });
const writeOne =
  (ownerType: OwnerType) =>
  async ({ path, body, ctx }: ValueInput<{ value: unknown }>) => ({
    status: 200 as const,
    body: { data: await writeValue(ctx, ownerType, path.id, path.slug!, body.value) },
  });
const remove =
  (ownerType: OwnerType) =>
  async ({ path, ctx }: ValueInput) => {
    await removeValue(ctx, ownerType, path.id, path.slug!);
    return { status: 204 as const, body: undefined };
  };

export const valueHandlers = {
  getProductMetafields: read('product'),
  setProductMetafields: writeAll('product'),
  setProductMetafield: writeOne('product'),
  deleteProductMetafield: remove('product'),
  getVariantMetafields: read('variant'),
  setVariantMetafields: writeAll('variant'),
  setVariantMetafield: writeOne('variant'),
  deleteVariantMetafield: remove('variant'),
  getCollectionMetafields: read('collection'),
  setCollectionMetafields: writeAll('collection'),
  setCollectionMetafield: writeOne('collection'),
  deleteCollectionMetafield: remove('collection'),
  getCustomerMetafields: read('customer'),
  setCustomerMetafields: writeAll('customer'),
  setCustomerMetafield: writeOne('customer'),
  deleteCustomerMetafield: remove('customer'),
  getOrderMetafields: read('order'),
  setOrderMetafields: writeAll('order'),
  setOrderMetafield: writeOne('order'),
  deleteOrderMetafield: remove('order'),
} satisfies PartialAreaHandlers<'metafields'>;
