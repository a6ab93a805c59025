import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { buildPriceList, createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const byId = (id: string) => ({ params: { path: { id } } });
const eventsOf = async (id: string) =>
  (
    await store.api.GET('/v1/events', {
      params: { query: { resource_type: 'price_list', resource_id: id, order: 'asc' } },
    })
  ).data!.data;
const variantOf = async (price = 2500) =>
  (await createProduct(store.api, { variants: [{ title: 'Default', price }] })).variants[0].id;

describe('createPriceList', () => {
  test('defaults: active, no window, increases not allowed, no prices; records price_list.created', async () => {
    const list = await createPriceList(store.api, { slug: 'wholesale', name: 'Wholesale' });
    expect(list).toEqual({
      id: expect.stringMatching(/^pl_[0-9a-z]{26}$/),
      slug: 'wholesale',
      name: 'Wholesale',
      description: null,
      currency: 'USD',
      status: 'active',
      starts_at: null,
      ends_at: null,
      allows_increase: false,
      price_count: 0,
      metadata: {},
      created_at: expect.any(String),
      updated_at: list.created_at,
    });
    expect((await eventsOf(list.id)).map((e) => [e.type, e.summary])).toEqual([
      ['price_list.created', 'Price list "Wholesale" (wholesale) created'],
    ]);
  });

  test('a slug is unique per project (409 on slug), and free in another project', async () => {
    await createPriceList(store.api, { slug: 'trade' });
    const taken = await store.api.POST('/v1/price-lists', { body: buildPriceList({ slug: 'trade' }) });
    expect(taken.response.status).toBe(409);
    expect(taken.error).toEqual({
      error: { code: 'conflict', message: 'Another price list already has this slug.', field: 'slug' },
    });
    const other = await createProject(store.app);
    await createPriceList(store.app.client(other.keys.secret_test.token), { slug: 'trade' });
  });

  test('slug pattern and 50-character bound, unknown currency and a window ending before it starts answer 400', async () => {
    for (const slug of ['Wholesale', 'two  words', 'a'.repeat(51), '-lead']) {
      const bad = await store.api.POST('/v1/price-lists', { body: buildPriceList({ slug }) });
      expect(bad.response.status).toBe(400);
      expect(bad.error!.error.field).toBe('slug');
    }
    expect((await createPriceList(store.api, { slug: 'a'.repeat(50) })).slug).toHaveLength(50);
    const currency = await store.api.POST('/v1/price-lists', { body: buildPriceList({ currency: 'XYZ' }) });
    expect(currency.error).toMatchObject({ error: { code: 'invalid_request', field: 'currency' } });
    const window = await store.api.POST('/v1/price-lists', {
      body: buildPriceList({ starts_at: '2027-02-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z' }),
    });
    expect(window.error).toEqual({
      error: { code: 'invalid_request', message: 'ends_at must be after starts_at.', field: 'ends_at' },
    });
  });
});

describe('getPriceList / listPriceLists', () => {
  test('get answers the list with its price count; another project gets 404', async () => {
    const list = await createPriceList(store.api);
    await setPrices(store.api, list.id, [{ variant_id: await variantOf(), amount: 2000 }]);
    const got = await store.api.GET('/v1/price-lists/{id}', byId(list.id));
    expect(got.data!.data).toMatchObject({ id: list.id, price_count: 1 });
    const other = await createProject(store.app);
    const foreign = await store.app.client(other.keys.secret_test.token).GET('/v1/price-lists/{id}', byId(list.id));
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toEqual({ error: { code: 'not_found', message: 'Price list not found.' } });
  });

  test('filters by status, currency and slug; pages with a cursor', async () => {
    const project = await createProject(store.app);
    const api = store.app.client(project.keys.secret_test.token);
    const a = await createPriceList(api, { slug: 'a-list', name: 'B' });
    const b = await createPriceList(api, { slug: 'b-list', name: 'a', status: 'draft' });
    const c = await createPriceList(api, { slug: 'c-list', name: 'C', currency: 'EUR' });
    const ids = async (query: Record<string, unknown>) =>
      (await api.GET('/v1/price-lists', { params: { query } })).data!.data.map((l) => l.id);
    expect(await ids({ status: 'draft' })).toEqual([b.id]);
    expect(await ids({ currency: 'EUR' })).toEqual([c.id]);
    expect(await ids({ slug: 'a-list' })).toEqual([a.id]);
    expect(await ids({ sort: 'name', order: 'asc' })).toEqual([b.id, a.id, c.id]);
    const first = await api.GET('/v1/price-lists', { params: { query: { limit: 2 } } });
    expect(first.data!.pagination).toMatchObject({ has_more: true, total: 3 });
    const second = await api.GET('/v1/price-lists', {
      params: { query: { limit: 2, cursor: first.data!.pagination.cursor! } },
    });
    expect([...first.data!.data, ...second.data!.data].map((l) => l.id)).toEqual([c.id, b.id, a.id]);
  });
});

describe('updatePriceList', () => {
  test('applies the fields sent and records price_list.updated with the changes; unchanged input records nothing', async () => {
    const list = await createPriceList(store.api, { name: 'Spring' });
    const patched = await store.api.PATCH('/v1/price-lists/{id}', {
      ...byId(list.id),
      body: { status: 'draft', ends_at: '2027-06-01T00:00:00.000Z', allows_increase: true },
    });
    expect(patched.data!.data).toMatchObject({
      status: 'draft',
      ends_at: '2027-06-01T00:00:00.000Z',
      allows_increase: true,
    });
    await store.api.PATCH('/v1/price-lists/{id}', { ...byId(list.id), body: { status: 'draft' } });
    const events = await eventsOf(list.id);
    expect(events.map((e) => e.type)).toEqual(['price_list.created', 'price_list.updated']);
    expect(events[1].metadata).toEqual({
      changes: {
        status: { from: 'active', to: 'draft' },
        ends_at: { from: null, to: '2027-06-01T00:00:00.000Z' },
        allows_increase: { from: false, to: true },
      },
    });
  });

  test('the currency changes only while the list holds no prices; a window ending before its start is 400', async () => {
    const list = await createPriceList(store.api, { starts_at: '2027-01-01T00:00:00Z' });
    const window = await store.api.PATCH('/v1/price-lists/{id}', {
      ...byId(list.id),
      body: { ends_at: '2026-12-31T00:00:00Z' },
    });
    expect(window.error).toMatchObject({ error: { code: 'invalid_request', field: 'ends_at' } });
    await setPrices(store.api, list.id, [{ variant_id: await variantOf(), amount: 100 }]);
    const currency = await store.api.PATCH('/v1/price-lists/{id}', { ...byId(list.id), body: { currency: 'EUR' } });
    expect(currency.response.status).toBe(400);
    expect(currency.error!.error.field).toBe('currency');
  });
});

describe('deletePriceList', () => {
  test('deletes the list and its prices and records price_list.deleted; the slug is free again', async () => {
    const list = await createPriceList(store.api, { slug: 'short-lived' });
    await setPrices(store.api, list.id, [{ variant_id: await variantOf(), amount: 100 }]);
    const deleted = await store.api.DELETE('/v1/price-lists/{id}', byId(list.id));
    expect(deleted.response.status).toBe(204);
    expect((await store.api.GET('/v1/price-lists/{id}', byId(list.id))).response.status).toBe(404);
    expect(await store.app.deps.db.priceListPrice.count({ where: { priceListId: list.id } })).toBe(0);
    expect((await eventsOf(list.id)).map((e) => e.type)).toEqual([
      'price_list.created',
      'price_list.updated',
      'price_list.deleted',
    ]);
    await createPriceList(store.api, { slug: 'short-lived' });
  });
});

describe('setPriceListPrices', () => {
  test('sets tiers, replaces a price of the same variant and min_quantity, and removes one with amount null', async () => {
    const list = await createPriceList(store.api);
    const variant = await variantOf();
    const first = await setPrices(store.api, list.id, [
      { variant_id: variant, amount: 2200 },
      { variant_id: variant, min_quantity: 10, amount: 1900 },
    ]);
    expect(first.map((p) => [p.variant_id, p.min_quantity, p.amount])).toEqual([
      [variant, 1, 2200],
      [variant, 10, 1900],
    ]);
    const second = await setPrices(store.api, list.id, [
      { variant_id: variant, min_quantity: 10, amount: 1800 },
      { variant_id: variant, amount: null },
    ]);
    expect(second).toEqual([{ ...first[1], amount: 1800, updated_at: expect.any(String) }]);
    const listed = await store.api.GET('/v1/price-lists/{id}/prices', byId(list.id));
    expect(listed.data!.data.map((p) => [p.min_quantity, p.amount])).toEqual([[10, 1800]]);
    const summaries = (await eventsOf(list.id)).map((e) => e.summary);
    expect(summaries.slice(1)).toEqual([
      `Price list "${list.name}": 2 prices set, 0 removed`,
      `Price list "${list.name}": 1 price set, 1 removed`,
    ]);
  });

  test('all or nothing: a foreign variant, a variant in another currency or a repeated entry rejects every entry', async () => {
    const list = await createPriceList(store.api);
    const good = await variantOf();
    const euroList = await createPriceList(store.api, { currency: 'EUR' });
    const inEuro = await store.api.PUT('/v1/price-lists/{id}/prices', {
      ...byId(euroList.id),
      body: { prices: [{ variant_id: good, amount: 100 }] },
    });
    expect(inEuro.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'prices[0].variant_id is priced in USD; this price list is in EUR.',
        field: 'prices[0].variant_id',
      },
    });
    const other = await createProject(store.app);
    const foreign = (await createProduct(store.app.client(other.keys.secret_test.token))).variants[0].id;
    const answer = await store.api.PUT('/v1/price-lists/{id}/prices', {
      ...byId(list.id),
      body: {
        prices: [
          { variant_id: good, amount: 100 },
          { variant_id: foreign, amount: 100 },
          { variant_id: 'var_nope', amount: 100 },
          { variant_id: good, min_quantity: 1, amount: 90 },
        ],
      },
    });
    expect(answer.response.status).toBe(400);
    expect(answer.error).toEqual({
      error: {
        code: 'validation_error',
        message: '3 prices are invalid.',
        details: [
          { field: 'prices[1].variant_id', message: 'prices[1].variant_id does not name a variant of this project.' },
          { field: 'prices[2].variant_id', message: 'prices[2].variant_id does not name a variant of this project.' },
          {
            field: 'prices[3].min_quantity',
            message: 'prices[3] repeats the variant and min_quantity of an earlier entry; send each once.',
          },
        ],
      },
    });
    expect((await store.api.GET('/v1/price-lists/{id}', byId(list.id))).data!.data.price_count).toBe(0);
  });

  test('takes 1,000 entries in one request and refuses 1,001', async () => {
    const list = await createPriceList(store.api);
    const variants = (
      await createProduct(store.api, {
        variants: Array.from({ length: 100 }, (_, i) => ({ title: `Size ${i}`, price: 5000 })),
      })
    ).variants.map((v) => v.id);
    const entries = variants.flatMap((variant_id) =>
      Array.from({ length: 10 }, (_, tier) => ({ variant_id, min_quantity: 1 + tier * 10, amount: 4000 - tier })),
    );
    expect(await setPrices(store.api, list.id, entries)).toHaveLength(1000);
    const tooMany = await store.api.PUT('/v1/price-lists/{id}/prices', {
      ...byId(list.id),
      body: { prices: [...entries, { variant_id: variants[0], min_quantity: 500, amount: 1 }] },
    });
    expect(tooMany.response.status).toBe(400);
    const page = await store.api.GET('/v1/price-lists/{id}/prices', {
      params: { path: { id: list.id }, query: { limit: 250, variant_id: variants[3] } },
    });
    expect(page.data!.data).toHaveLength(10);
    expect(page.data!.pagination.total).toBe(10);
  });

  test("a price of a deleted product's variant can still be removed with amount null (and no longer set)", async () => {
    const list = await createPriceList(store.api);
    const product = await createProduct(store.api, { variants: [{ title: 'Gone', price: 1000 }] });
    const variant = product.variants[0].id;
    await setPrices(store.api, list.id, [{ variant_id: variant, amount: 900 }]);
    expect((await store.api.DELETE('/v1/products/{id}', byId(product.id))).response.status).toBe(204);

    const set = await store.api.PUT('/v1/price-lists/{id}/prices', {
      ...byId(list.id),
      body: { prices: [{ variant_id: variant, amount: 800 }] },
    });
    expect(set.error!.error).toMatchObject({ code: 'invalid_request', field: 'prices[0].variant_id' });
    const removed = await store.api.PUT('/v1/price-lists/{id}/prices', {
      ...byId(list.id),
      body: { prices: [{ variant_id: variant, amount: null }] },
    });
    expect([removed.response.status, removed.data?.data]).toEqual([200, []]);
    expect((await store.api.GET('/v1/price-lists/{id}', byId(list.id))).data!.data.price_count).toBe(0);
  });

  test('deleting a variant removes its prices from every list', async () => {
    const list = await createPriceList(store.api);
    const product = await createProduct(store.api, {
      variants: [
        { title: 'S', price: 1000 },
        { title: 'M', price: 1000 },
      ],
    });
    await setPrices(store.api, list.id, [
      { variant_id: product.variants[0].id, amount: 900 },
      { variant_id: product.variants[1].id, amount: 900 },
    ]);
    await store.api.DELETE('/v1/variants/{id}', byId(product.variants[0].id));
    const listed = await store.api.GET('/v1/price-lists/{id}/prices', byId(list.id));
    expect(listed.data!.data.map((p) => p.variant_id)).toEqual([product.variants[1].id]);
  });
});
