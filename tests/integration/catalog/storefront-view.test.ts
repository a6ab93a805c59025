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
