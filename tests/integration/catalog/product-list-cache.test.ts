import { describe, expect, test } from '@jest/globals';
import { productList } from '../../../src/modules/catalog/products.statements.js';
import { sql } from '../../../src/shared/sql-list.js';
import { VersionedTexts } from '../../../src/shared/versioned-texts.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { newestFirstPage } from '../../setup/pages.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// The product list keeps each product's JSON in the process (caches.productJson) with the version (xmin) of the
// rows it was written from, and sends a kept text only when the page's statement reads that same version: these
// tests change those rows behind the API's back (raw SQL, as another program would) and expect the next page to
// show the change, with no change feed involved.
const store = useStore();

async function catalog() {
  const shop = await createProject(store.app);
  const api = store.app.client(shop.keys.secret_test.token);
  const product = await createProduct(api, {
    title: 'Trail Runner',
    variants: [
      { title: 'EU 42', price: 12900 },
      { title: 'EU 43', price: 11900 },
    ],
  });
  const other = await createProduct(api, { title: 'Other' });
  const collection = (await api.POST('/v1/collections', { body: { title: 'Running' } })).data!.data;
  return { shop, api, product, other, collection };
}

describe('listProducts: products’ JSON kept in the process while their rows are unchanged', () => {
  test('a second page of unchanged products is sent from the kept texts, equal to the first', async () => {
    const { api } = await catalog();
    const cache = store.app.deps.caches!.productJson;
    const first = await api.GET('/v1/products', { params: { query: { limit: 25 } } });
    const hits = cache.hits;
    const second = await api.GET('/v1/products', { params: { query: { limit: 25 } } });
    expect(cache.hits - hits).toBe(2);
    expect(second.data).toEqual(first.data);
  });

  test('a write to any row a product’s JSON is written from shows in the next page, whoever wrote it', async () => {
    const { api, product, other, collection } = await catalog();
    const db = store.app.deps.db;
    const listed = async (id = product.id) => {
      const page = await api.GET('/v1/products', { params: { query: { limit: 25 } } });
      expect(page.response.status).toBe(200);
      return page.data!.data.find((row) => row.id === id)!;
    };
    const [first, second] = product.variants.map((variant) => variant.id);
    await listed(); // kept
    await db.$executeRaw`UPDATE products SET title = 'Trail Runner II' WHERE id = ${product.id}`;
    expect((await listed()).title).toBe('Trail Runner II');
    await db.$executeRaw`UPDATE variants SET inventory_quantity = 5 WHERE id = ${second}`;
    expect((await listed()).variants.map((variant) => variant.inventory_quantity)).toEqual([0, 5]);
    await db.$executeRaw`INSERT INTO collection_products (collection_id, product_id) VALUES (${collection.id}, ${product.id})`;
    expect((await listed()).collection_ids).toEqual([collection.id]);
    await db.$executeRaw`DELETE FROM collection_products WHERE product_id = ${product.id}`;
    expect((await listed()).collection_ids).toEqual([]);
    await db.$executeRaw`DELETE FROM variants WHERE id = ${first}`;
    expect((await listed()).variants.map((variant) => variant.id)).toEqual([second]);
    // Through the API too, and only the product written to is written afresh.
    await api.PATCH('/v1/products/{id}', { ...byId(other.id), body: { title: 'Other, renamed' } });
    const cache = store.app.deps.caches!.productJson;
    const misses = cache.misses;
    expect((await listed(other.id)).title).toBe('Other, renamed');
    expect(cache.misses - misses).toBe(1);
  });

  test('each view keeps its own text, and a product deleted meanwhile is not listed', async () => {
    const { shop, api, product } = await catalog();
    const storefront = store.app.client(shop.keys.publishable_test.token);
    const merchantRow = async () =>
      (await api.GET('/v1/products', { params: { query: { limit: 25 } } })).data!.data.find(
        (row) => row.id === product.id,
      );
    const storefrontRow = async () =>
      (await storefront.GET('/v1/products', { params: { query: { limit: 25 } } })).data!.data.find(
        (row) => row.id === product.id,
      );
    for (let round = 0; round < 2; round++) {
      expect((await merchantRow())!.variants[0]).toHaveProperty('inventory_quantity');
      expect((await storefrontRow())!.variants[0]).not.toHaveProperty('inventory_quantity');
    }
    await api.DELETE('/v1/products/{id}', byId(product.id));
    expect(await merchantRow()).toBeUndefined();
    expect(await storefrontRow()).toBeUndefined();
  });
});

describe('caches.productJson: one project holds at most a quarter of the kept texts', () => {
  test("another project's catalog reads never push a project's products out: its next page is sent from the kept texts", async () => {
    // 8,000 characters in all (a product's merchant JSON is under 1,000), a project's at most 2,000.
    const texts = new VersionedTexts(8_000);
    const page = (projectId: string) =>
      productList(store.app.deps.db, 'merchant', projectId, [sql`deleted_at IS NULL`], texts).fetch(
        newestFirstPage(25),
      );
    const quiet = await createProject(store.app);
    await createProduct(store.app.client(quiet.keys.secret_test.token), { title: 'Quiet' });
    const busy = await createProject(store.app);
    const busyApi = store.app.client(busy.keys.secret_test.token);
    for (let n = 0; n < 12; n++) await createProduct(busyApi, { title: `Busy ${n}` });
    const first = await page(quiet.project.id);
    expect(first[0].json.length).toBeLessThan(2_000);
    expect((await page(busy.project.id)).length).toBe(12); // about 10,000 characters: more than the whole bound
    const [hits, misses] = [texts.hits, texts.misses];
    expect(await page(quiet.project.id)).toEqual(first);
    expect([texts.hits - hits, texts.misses - misses]).toEqual([1, 0]);
  });
});
