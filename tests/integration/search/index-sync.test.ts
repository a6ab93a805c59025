import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import { byId, search } from '../../setup/requests.js';

const store = useStore();

const found = async (q: string, extra: Record<string, unknown> = {}) =>
  (await search(store.api, { q, ...extra })).products.data.map((p) => p.id);

describe('the index follows every catalog write, in its transaction', () => {
  test('product fields and status, variants (titles, SKUs, prices), collection membership and titles, stock, deletion', async () => {
    const product = await createProduct(store.api, {
      title: 'Alpaca Scarf',
      variants: [{ title: 'One', price: 3000 }],
    });
    expect(await found('alpaca')).toEqual([product.id]);

    await store.api.PATCH('/v1/products/{id}', {
      ...byId(product.id),
      body: { title: 'Vicuna Scarf', tags: ['luxury'] },
    });
    expect(await found('alpaca')).toEqual([]);
    expect(await found('vicuna luxury')).toEqual([product.id]);

    await store.api.PATCH('/v1/products/{id}', { ...byId(product.id), body: { status: 'draft' } });
    expect(await found('vicuna')).toEqual([]);
    await store.api.PATCH('/v1/products/{id}', { ...byId(product.id), body: { status: 'active' } });
    expect(await found('vicuna')).toEqual([product.id]);

    const variant = (
      await store.api.POST('/v1/products/{id}/variants', {
        ...byId(product.id),
        body: { title: 'Charcoal', sku: 'VS-77', price: 1500 },
      })
    ).data!.data;
    expect(await found('charcoal')).toEqual([product.id]);
    expect(await found('VS-77')).toEqual([product.id]);
    expect(await found('vicuna', { price_max: 1500 })).toEqual([product.id]);
    await store.api.DELETE('/v1/variants/{id}', byId(variant.id));
    expect(await found('charcoal')).toEqual([]);

    const collection = (await store.api.POST('/v1/collections', { body: { title: 'Gift Ideas' } })).data!.data;
    await store.api.POST('/v1/collections/{id}/products', {
      ...byId(collection.id),
      body: { product_ids: [product.id] },
    });
    expect(await found('gift')).toEqual([product.id]);
    expect(await found('vicuna', { collection_id: collection.id })).toEqual([product.id]);
    await store.api.PATCH('/v1/collections/{id}', { ...byId(collection.id), body: { title: 'Presents' } });
    expect(await found('gift')).toEqual([]);
    expect(await found('presents')).toEqual([product.id]);
    await store.api.DELETE('/v1/collections/{id}/products/{product_id}', {
      params: { path: { id: collection.id, product_id: product.id } },
    });
    expect(await found('presents')).toEqual([]);

    expect(await found('vicuna', { in_stock: true })).toEqual([]);
    const location = (await store.api.GET('/v1/locations')).data!.data[0];
    await store.api.PUT('/v1/inventory-levels', {
      body: { variant_id: product.variants[0].id, location_id: location.id, available: 2 },
    });
    expect(await found('vicuna', { in_stock: true })).toEqual([product.id]);

    await store.api.DELETE('/v1/products/{id}', byId(product.id));
    expect(await found('vicuna')).toEqual([]);
  });

  test('the typo vocabulary follows the documents', async () => {
    const product = await createProduct(store.api, { title: 'Quokka Plush', variants: [{ title: 'One', price: 100 }] });
    expect(await found('qoukka ')).toEqual([product.id]);
    await store.api.DELETE('/v1/products/{id}', byId(product.id));
    const rows = await store.app.deps.db.$queryRaw<
      Array<{ doc_count: number }>
    >`SELECT doc_count FROM search_terms WHERE term = 'quokka'`;
    expect(rows.map((r) => r.doc_count)).toEqual([0]);
  });
});
