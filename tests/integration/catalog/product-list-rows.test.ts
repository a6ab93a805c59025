import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();

describe('listProducts: a page and its variants and collections come from one statement', () => {
  test('each listed product equals the product read by id: variants by position, nulls, times to the millisecond, sorted collection ids', async () => {
    const shop = await createProject(store.app);
    const api = store.app.client(shop.keys.secret_test.token);
    const storefront = store.app.client(shop.keys.publishable_test.token);
    const plain = await createProduct(api, { title: 'Plain', variants: [{ title: 'One', price: 500 }] });
    const full = await createProduct(api, {
      title: 'Full',
      tags: ['a', 'b'],
      metadata: { origin: 'test', count: 1, flag: true },
      variants: [
        { title: 'EU 42', sku: 'FULL-42', price: 12900, sale_price: 9900, weight: 640, low_stock_threshold: 3 },
        { title: 'EU 43', price: 11900, inventory_policy: 'continue' },
        { title: 'EU 44', sku: 'FULL-44', price: 13900 },
      ],
    });
    // A variant added later lands last by position.
    await api.POST('/v1/products/{id}/variants', { ...byId(full.id), body: { title: 'EU 45', price: 14900 } });
    const collections = [];
    for (const title of ['Zeta', 'Alpha']) {
      const collection = (await api.POST('/v1/collections', { body: { title } })).data!.data;
      await api.POST('/v1/collections/{id}/products', { ...byId(collection.id), body: { product_ids: [full.id] } });
      collections.push(collection.id);
    }
    const empty = await createProduct(api, { title: 'Archived', status: 'archived' });

    for (const client of [api, storefront]) {
      const page = (await client.GET('/v1/products', { params: { query: { limit: 25 } } })).data!.data;
      const read = await Promise.all(
        page.map(async (product) => (await client.GET('/v1/products/{id}', byId(product.id))).data!.data),
      );
      expect(page).toEqual(read);
      if (client === api) {
        expect(page.map((product) => product.id)).toEqual([empty.id, full.id, plain.id]);
        const listed = page.find((product) => product.id === full.id)!;
        expect(listed.variants.map((variant) => variant.title)).toEqual(['EU 42', 'EU 43', 'EU 44', 'EU 45']);
        expect(listed.collection_ids).toEqual([...collections].sort());
        expect(listed.variants[1]).toMatchObject({ sku: null, sale_price: null, low_stock_threshold: null });
      }
    }
  });
});
