import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import type { CommerceClient } from '@commerce-api/sdk';

const store = useStore();
let storefront: CommerceClient;
let collectionId: string;

beforeAll(async () => {
  storefront = store.app.client(store.keys.publishable_test.token);
  const products = [];
  for (const status of ['draft', 'draft', 'draft', 'draft', 'active', 'active'] as const) {
    products.push(await createProduct(store.api, { status, tags: ['view'] }));
  }
  const collection = await store.api.POST('/v1/collections', { body: { title: 'Everything' } });
  collectionId = collection.data!.data.id;
  await store.api.POST('/v1/collections/{id}/products', {
    params: { path: { id: collectionId } },
    body: { product_ids: products.map((p) => p.id) },
  });
});

const listTotal = async (client: CommerceClient, status?: 'draft' | 'active') =>
  (await client.GET('/v1/products', { params: { query: { tag: 'view', status, limit: 1 } } })).data!;

describe('listProducts: the storefront and merchant views never share a figure', () => {
  test('?status=draft with a publishable key answers no rows and total 0, even after the merchant counted 4', async () => {
    expect((await listTotal(store.api, 'draft')).pagination.total).toBe(4);
    const page = await listTotal(storefront, 'draft');
    expect(page.data).toEqual([]);
    expect(page.pagination.total).toBe(0);
  });

  test('totals are each right whichever view asked first', async () => {
    expect((await listTotal(storefront)).pagination.total).toBe(2);
    expect((await listTotal(store.api)).pagination.total).toBe(6);
    expect((await listTotal(storefront)).pagination.total).toBe(2);
  });

  test("a merchant's cursor does not continue the storefront's list (400 naming cursor)", async () => {
    const merchantPage = await listTotal(store.api);
    const { response, error } = await storefront.GET('/v1/products', {
      params: { query: { tag: 'view', limit: 1, cursor: merchantPage.pagination.cursor! } },
    });
    expect(response.status).toBe(400);
    expect(error!.error.field).toBe('cursor');
  });
});

describe('collections: product_count is what the caller can list', () => {
  test('a publishable key counts active products only; the secret key counts drafts too', async () => {
    const byId = { params: { path: { id: collectionId } } };
    expect((await storefront.GET('/v1/collections/{id}', byId)).data!.data.product_count).toBe(2);
    expect((await store.api.GET('/v1/collections/{id}', byId)).data!.data.product_count).toBe(6);
    const listed = await storefront.GET('/v1/collections', {});
    expect(listed.data!.data.find((c) => c.id === collectionId)!.product_count).toBe(2);
  });
});

describe('product reads: storefronts never see merchant-only fields', () => {
  let productId: string;
  let stocked: string;
  let soldOut: string;
  let backorder: string;

  beforeAll(async () => {
    const product = await createProduct(store.api, {
      status: 'active',
      tags: ['merchant-only'],
      metadata: { erp_id: 'A-10293', cost_price: 4100 },
      variants: [
        { title: 'Stocked', price: 1900, low_stock_threshold: 5 },
        { title: 'Sold out', price: 1900 },
        { title: 'Backorder', price: 1900, inventory_policy: 'continue' },
      ],
    });
    productId = product.id;
    [stocked, soldOut, backorder] = product.variants.map((v) => v.id);
    const location = await store.api.POST('/v1/locations', { body: { name: 'Back room' } });
    const set = await store.api.PUT('/v1/inventory-levels', {
      body: { variant_id: stocked, location_id: location.data!.data.id, available: 37 },
    });
    expect(set.response.status).toBe(200);
  });

  const merchantOnly = ['inventory_quantity', 'low_stock_threshold'];
  const expectStorefrontVariants = (variants: Array<Record<string, unknown>>) => {
    for (const variant of variants) for (const field of merchantOnly) expect(variant).not.toHaveProperty(field);
    expect(Object.fromEntries(variants.map((v) => [v.id, v.in_stock]))).toEqual({
      [stocked]: true,
      [soldOut]: false,
      [backorder]: true,
    });
  };

  test('getProduct and listProducts with a publishable key leave out metadata and exact stock, and say in_stock', async () => {
    const byId = { params: { path: { id: productId } } };
    const one = (await storefront.GET('/v1/products/{id}', byId)).data!.data;
    expect(one).not.toHaveProperty('metadata');
    expectStorefrontVariants(one.variants);
    const listed = (await storefront.GET('/v1/products', { params: { query: { tag: 'merchant-only' } } })).data!.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('metadata');
    expectStorefrontVariants(listed[0].variants);
    const asked = await storefront.GET('/v1/products/{id}', {
      params: { path: { id: productId }, query: { fields: ['metadata', 'variants'] } },
    });
    expect(Object.keys(asked.data!.data).sort()).toEqual(['id', 'variants']);
  });

  test('getVariant with a publishable key leaves out inventory_quantity and low_stock_threshold', async () => {
    const variant = (await storefront.GET('/v1/variants/{id}', { params: { path: { id: stocked } } })).data!.data;
    expect(variant).toMatchObject({ id: stocked, in_stock: true });
    for (const field of merchantOnly) expect(variant).not.toHaveProperty(field);
  });

  test('the secret key still reads every field, in_stock included', async () => {
    const product = (await store.api.GET('/v1/products/{id}', { params: { path: { id: productId } } })).data!.data;
    expect(product.metadata).toEqual({ erp_id: 'A-10293', cost_price: 4100 });
    expect(product.variants.map((v) => [v.inventory_quantity, v.low_stock_threshold, v.in_stock])).toEqual([
      [37, 5, true],
      [0, null, false],
      [0, null, true],
    ]);
    const listed = (await store.api.GET('/v1/products', { params: { query: { tag: 'merchant-only' } } })).data!.data;
    expect(listed[0].metadata).toEqual({ erp_id: 'A-10293', cost_price: 4100 });
    expect(listed[0].variants[0].inventory_quantity).toBe(37);
    const variant = (await store.api.GET('/v1/variants/{id}', { params: { path: { id: stocked } } })).data!.data;
    expect(variant).toMatchObject({ inventory_quantity: 37, low_stock_threshold: 5, in_stock: true });
  });
});
