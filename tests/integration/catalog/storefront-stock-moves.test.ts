import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// A storefront sees `in_stock`, not the quantity: its view of a variant (and of the product holding it) must not
// change with each sale or stock count, or anyone with the public key could watch every variant's sales through
// `updated_at` and the ETag.
const store = useStore();
const { api } = store;
let storefront: CommerceClient;
let product: ProductResource;

beforeAll(async () => {
  storefront = store.app.client(store.keys.publishable_test.token);
  product = await createProduct(api, { variants: [{ title: 'Only', price: 1000 }] });
  await setStock(10);
});

const variantId = () => product.variants[0].id;

async function setStock(available: number): Promise<void> {
  const { response } = await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId(), location_id: store.project.default_location_id, available },
  });
  expect(response.status).toBe(200);
}

/** The storefront's view of the variant and of its product: bodies and ETags. */
async function storefrontViews() {
  const variant = await storefront.GET('/v1/variants/{id}', byId(variantId()));
  const shown = await storefront.GET('/v1/products/{id}', byId(product.id));
  expect(variant.response.status).toBe(200);
  expect(shown.response.status).toBe(200);
  return {
    variant: variant.data!.data,
    variantTag: variant.response.headers.get('etag'),
    product: shown.data!.data,
    productTag: shown.response.headers.get('etag'),
  };
}

async function sellOne(): Promise<void> {
  const draft = await createDraftOrder(api);
  await addItems(api, draft.id, [{ variant_id: variantId(), quantity: 1 }]);
  expect((await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).response.status).toBe(201);
}

describe('storefront views do not reveal stock movements beyond in_stock', () => {
  test('a sale and a stock count leave the storefront variant and product (updated_at, ETag) unchanged', async () => {
    const before = await storefrontViews();
    expect(before.variant.in_stock).toBe(true);
    expect(before.variantTag).not.toBeNull();
    await sellOne();
    await setStock(7);
    const after = await storefrontViews();
    expect(after).toEqual(before);
    // The merchant still sees the exact quantity move.
    const merchant = await api.GET('/v1/variants/{id}', byId(variantId()));
    expect(merchant.data!.data.inventory_quantity).toBe(7);
  });

  test('when in_stock changes the storefront sees it, with a new updated_at and ETag', async () => {
    const before = await storefrontViews();
    await setStock(0);
    const soldOut = await storefrontViews();
    expect(soldOut.variant.in_stock).toBe(false);
    expect(soldOut.variantTag).not.toBe(before.variantTag);
    expect(Date.parse(soldOut.variant.updated_at)).toBeGreaterThan(Date.parse(before.variant.updated_at));
    await setStock(3);
    const back = await storefrontViews();
    expect(back.variant.in_stock).toBe(true);
    expect(Date.parse(back.variant.updated_at)).toBeGreaterThan(Date.parse(soldOut.variant.updated_at));
  });
});
