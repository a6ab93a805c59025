import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import { withTableNotificationsHeld } from '../../setup/two-processes.js';
import { search, type SearchQuery } from '../../setup/requests.js';

const store = useStore({ project: { currency: 'USD', exchange_rates: { EUR: 0.5 } } });

const titles = async (query: SearchQuery) => (await search(store.api, query)).products.data.map((p) => p.title);

let shirt: ProductResource;
let tee: ProductResource;
let collectionId: string;

beforeAll(async () => {
  shirt = await createProduct(store.api, {
    title: 'Linen Shirt',
    product_type: 'Shirts',
    tags: ['summer'],
    variants: [{ title: 'M', price: 6000 }],
  });
  tee = await createProduct(store.api, {
    title: 'Cotton T-Shirt',
    product_type: 'Shirts',
    tags: ['summer', 'basics'],
    variants: [{ title: 'M', price: 2000 }],
  });
  await createProduct(store.api, {
    title: 'Merino Sweater',
    product_type: 'Knitwear',
    tags: ['winter'],
    variants: [{ title: 'M', price: 9000 }],
  });
  await createProduct(store.api, {
    title: 'Waterproof Hiking Boot',
    product_type: 'Shoes',
    variants: [{ title: '42', price: 15000, sku: 'HB-4242' }],
  });
  await createProduct(store.api, {
    title: 'Shirt Dress',
    product_type: 'Dresses',
    variants: [{ title: 'M', price: 7000 }],
  });
  collectionId = (await store.api.POST('/v1/collections', { body: { title: 'Summer' } })).data!.data.id;
  await store.api.POST('/v1/collections/{id}/products', {
    params: { path: { id: collectionId } },
    body: { product_ids: [shirt.id, tee.id] },
  });
  const location = (await store.api.GET('/v1/locations')).data!.data[0];
  await store.api.PUT('/v1/inventory-levels', {
    body: { variant_id: shirt.variants[0].id, location_id: location.id, available: 5 },
  });
});

describe('typo tolerance', () => {
  test('4-7 letters: one edit (a transposition counts as one); exact matches rank above corrected ones', async () => {
    expect(await titles({ q: 'shrit ' })).toEqual(expect.arrayContaining(['Linen Shirt', 'Shirt Dress']));
    expect(await titles({ q: 'swaeter ' })).toEqual(['Merino Sweater']);
    expect(await titles({ q: 'sweeter ' })).toEqual(['Merino Sweater']);
    expect(await titles({ q: 'swter ' })).toEqual([]); // two edits from "sweater"
  });

  test('8+ letters: two edits; 1-3 letters: exact only; numbers and SKUs are never corrected', async () => {
    expect(await titles({ q: 'watreproff ' })).toEqual(['Waterproof Hiking Boot']);
    expect(await titles({ q: 'tee ' })).toEqual([]);
    expect(await titles({ q: 'hb-4243 ' })).toEqual([]);
    expect(await titles({ q: 'hb-4242 ' })).toEqual(['Waterproof Hiking Boot']);
  });

  test('explain=true shows the corrections (secret keys only)', async () => {
    const result = await search(store.api, { q: 'shrit ', explain: true });
    const hit = result.products.data.find((p) => p.id === shirt.id)!;
    expect(hit.explain).toMatchObject({
      corrections: [{ from: 'shrit', to: 'shirt', distance: 1 }],
      matched_terms: ['shirt'],
      rules: [],
    });
    expect(hit.explain!.final_score).toBeGreaterThan(0);
    const publishable = store.app.client(store.keys.publishable_test.token);
    const refused = await publishable.GET('/v1/search', { params: { query: { q: 'shirt', explain: true } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error.code).toBe('forbidden');
  });
});

describe('synonyms', () => {
  test("this process's synonym writes change its cached search answers at once, before their notifications arrive", async () => {
    // Hold back the change feed's table notifications for the test (they arrive late under load): only the
    // in-process invalidation of the writes themselves can make the next answers right.
    await withTableNotificationsHeld(store.app, async () => {
      expect(await titles({ q: 'pullover ' })).toEqual([]);
      const group = (await store.api.POST('/v1/search/synonyms', { body: { terms: ['pullover', 'sweater'] } })).data!
        .data;
      expect(await titles({ q: 'pullover ' })).toEqual(['Merino Sweater']);
      await store.api.PATCH('/v1/search/synonyms/{id}', {
        params: { path: { id: group.id } },
        body: { is_active: false },
      });
      expect(await titles({ q: 'pullover ' })).toEqual([]);
      await store.api.PATCH('/v1/search/synonyms/{id}', {
        params: { path: { id: group.id } },
        body: { is_active: true },
      });
      expect(await titles({ q: 'pullover ' })).toEqual(['Merino Sweater']);
      await store.api.DELETE('/v1/search/synonyms/{id}', { params: { path: { id: group.id } } });
      expect(await titles({ q: 'pullover ' })).toEqual([]);
    });
  });

  test('equivalent groups expand every way, multi-word terms work, inactive groups are ignored, changes apply at once', async () => {
    expect(await titles({ q: 'jumper ' })).toEqual([]);
    const group = (await store.api.POST('/v1/search/synonyms', { body: { terms: ['Jumper', 'sweater', 'Knit Top'] } }))
      .data!.data;
    expect(group).toMatchObject({
      synonym_type: 'equivalent',
      terms: ['jumper', 'sweater', 'knit top'],
      is_active: true,
    });
    expect(await titles({ q: 'jumper ' })).toEqual(['Merino Sweater']);
    expect(await titles({ q: 'knit top ' })).toEqual(['Merino Sweater']);
    await store.api.PATCH('/v1/search/synonyms/{id}', {
      params: { path: { id: group.id } },
      body: { is_active: false },
    });
    expect(await titles({ q: 'jumper ' })).toEqual([]);
    expect(
      (await store.api.DELETE('/v1/search/synonyms/{id}', { params: { path: { id: group.id } } })).response.status,
    ).toBe(204);
    expect(
      (await store.api.DELETE('/v1/search/synonyms/{id}', { params: { path: { id: group.id } } })).response.status,
    ).toBe(404);
  });

  test('oneway groups expand only from the first term', async () => {
    await store.api.POST('/v1/search/synonyms', { body: { synonym_type: 'oneway', terms: ['footwear', 'boot'] } });
    expect(await titles({ q: 'footwear ' })).toEqual(['Waterproof Hiking Boot']);
    expect(await titles({ q: 'boot ' })).toEqual(['Waterproof Hiking Boot']);
    await store.api.POST('/v1/search/synonyms', { body: { synonym_type: 'oneway', terms: ['tshirt', 'merino'] } });
    expect(await titles({ q: 'merino ' })).toEqual(['Merino Sweater']);
  });

  test('limits: 2-20 terms of at most 100 characters; list oldest first', async () => {
    expect((await store.api.POST('/v1/search/synonyms', { body: { terms: ['one'] } })).response.status).toBe(400);
    expect(
      (await store.api.POST('/v1/search/synonyms', { body: { terms: Array.from({ length: 21 }, (_, i) => `t${i}`) } }))
        .response.status,
    ).toBe(400);
    expect(
      (await store.api.POST('/v1/search/synonyms', { body: { terms: ['a', 'x'.repeat(101)] } })).response.status,
    ).toBe(400);
    const list = (await store.api.GET('/v1/search/synonyms')).data!.data;
    expect(list.map((g) => g.terms[0])).toEqual(['footwear', 'tshirt']);
  });
});

describe('filters, facets and currency', () => {
  test('facets count the filtered matches before paging (the `SearchFacets` shape)', async () => {
    const result = await search(store.api, { q: 'shirt', limit: 1 });
    expect(result.products.total).toBe(3);
    expect(result.products.data).toHaveLength(1);
    expect(result.products.facets).toEqual({
      product_type: [
        { value: 'Shirts', count: 2 },
        { value: 'Dresses', count: 1 },
      ],
      tag: [
        { value: 'summer', count: 2 },
        { value: 'basics', count: 1 },
      ],
      collection: [{ id: collectionId, title: 'Summer', count: 2 }],
      in_stock: [
        { value: true, count: 1 },
        { value: false, count: 2 },
      ],
      price: { min: 2000, max: 7000 },
    });
    const filtered = await search(store.api, { q: 'shirt', product_type: 'Shirts', in_stock: false });
    expect(filtered.products.data.map((p) => p.title)).toEqual(['Cotton T-Shirt']);
    expect(filtered.products.facets!.product_type).toEqual([{ value: 'Shirts', count: 1 }]);
    expect((await search(store.api, { q: 'shirt', facets: false })).products.facets).toBeUndefined();
  });

  test('each filter: product_type, collection_id, tag, in_stock, price_min, price_max', async () => {
    expect((await titles({ q: 'shirt', collection_id: collectionId })).sort()).toEqual([
      'Cotton T-Shirt',
      'Linen Shirt',
    ]);
    expect(await titles({ q: 'shirt', tag: 'basics' })).toEqual(['Cotton T-Shirt']);
    expect(await titles({ q: 'shirt', in_stock: true })).toEqual(['Linen Shirt']);
    expect((await titles({ q: 'shirt', price_min: 6000 })).sort()).toEqual(['Linen Shirt', 'Shirt Dress']);
    expect(await titles({ q: 'shirt', price_max: 2000 })).toEqual(['Cotton T-Shirt']);
  });

  test('currency converts prices, price filters and facet bounds; an unknown currency is 400', async () => {
    const result = await search(store.api, { q: 'shirt', currency: 'EUR', price_max: 3000 });
    const converted = result.products.data.map((p) => [p.title, p.price, p.currency]).sort();
    expect(converted).toEqual([
      ['Cotton T-Shirt', 1000, 'EUR'],
      ['Linen Shirt', 3000, 'EUR'],
    ]);
    expect(result.products.facets!.price).toEqual({ min: 1000, max: 3000 });
    const unknown = await store.api.GET('/v1/search', { params: { query: { q: 'shirt', currency: 'JPY' } } });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error!.error).toMatchObject({ code: 'invalid_request', field: 'currency' });
  });

  test('limits: q 1-200, limit 1-50, offset 0-1000; types selects collections', async () => {
    for (const query of [
      { q: '' },
      { q: 'x'.repeat(201) },
      { q: 'a', limit: 51 },
      { q: 'a', limit: 0 },
      { q: 'a', offset: 1001 },
    ]) {
      expect((await store.api.GET('/v1/search', { params: { query: query as never } })).response.status).toBe(400);
    }
    const both = await search(store.api, { q: 'summer', types: ['products', 'collections'] });
    expect(both.collections.data.map((c) => [c.title, c.product_count])).toEqual([['Summer', 2]]);
    expect((await search(store.api, { q: 'summer', types: ['collections'] })).products.total).toBe(0);
  });
});
