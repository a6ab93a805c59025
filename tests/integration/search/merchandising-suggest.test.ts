import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { flushSearchLog } from '../../../src/modules/search/index.js';
import { useStore } from '../../setup/store.js';
import { search } from '../../setup/requests.js';

// Behind a trusted proxy, so searches can come from distinct client addresses (X-Forwarded-For).
const store = useStore({ app: { config: { trustProxy: true } } });

const ids = async (q: string) => (await search(store.api, { q })).products.data.map((p) => p.id);
const rule = (body: Record<string, unknown>) => store.api.POST('/v1/search/merchandising', { body: body as never });

let a: ProductResource;
let b: ProductResource;
let c: ProductResource;
let unrelated: ProductResource;

beforeAll(async () => {
  a = await createProduct(store.api, { title: 'Rain Jacket Classic', variants: [{ title: 'M', price: 100 }] });
  b = await createProduct(store.api, {
    title: 'Rain Jacket Pro',
    description: 'Jacket for rain.',
    variants: [{ title: 'M', price: 100 }],
  });
  c = await createProduct(store.api, {
    title: 'Jacket',
    description: 'A plain jacket.',
    variants: [{ title: 'M', price: 100 }],
  });
  unrelated = await createProduct(store.api, { title: 'Camping Stove', variants: [{ title: 'One', price: 100 }] });
});

describe('merchandising rules', () => {
  test('pin places a product at its position, even when the query does not match it; an inactive rule does nothing', async () => {
    const pin = (
      await rule({
        name: 'Stove first',
        match_query: 'Rain Jacket',
        match_type: 'exact',
        action: 'pin',
        product_id: unrelated.id,
        pin_position: 0,
      })
    ).data!.data;
    expect(pin).toMatchObject({
      match_query: 'rain jacket',
      match_type: 'exact',
      pin_position: 0,
      score_multiplier: null,
      priority: 0,
      is_active: true,
    });
    expect((await ids('rain jacket'))[0]).toBe(unrelated.id);
    // Two strict matches and the pin: fewer than a page, so the plain "Jacket" joins as a relaxed match.
    const pinned = (await search(store.api, { q: 'rain jacket' })).products;
    expect(pinned.relaxation!.strict_total).toBe(3);
    expect(pinned.total).toBe(4);
    expect(pinned.data.map((p) => [p.id, p.relaxed])).toEqual([
      [unrelated.id, true],
      [expect.any(String), false],
      [expect.any(String), false],
      [c.id, true],
    ]);
    expect(await ids('rain jackets')).not.toContain(unrelated.id); // exact: the normalized query must equal it
    await store.api.PATCH('/v1/search/merchandising/{id}', {
      params: { path: { id: pin.id } },
      body: { is_active: false },
    });
    expect(await ids('rain jacket')).not.toContain(unrelated.id);
  });

  test('two active pins on the same (match_query, match_type, pin_position) are 409; a pin needs pin_position', async () => {
    const first = await rule({
      name: 'p1',
      match_query: 'jacket',
      match_type: 'contains',
      action: 'pin',
      product_id: c.id,
      pin_position: 1,
    });
    expect(first.response.status).toBe(201);
    const second = await rule({
      name: 'p2',
      match_query: 'JACKET',
      match_type: 'contains',
      action: 'pin',
      product_id: a.id,
      pin_position: 1,
    });
    expect(second.response.status).toBe(409);
    expect(second.error!.error.code).toBe('conflict');
    const other = await rule({
      name: 'p3',
      match_query: 'jacket',
      match_type: 'all',
      action: 'pin',
      product_id: a.id,
      pin_position: 1,
    });
    expect(other.response.status).toBe(201);
    expect(
      (await rule({ name: 'x', match_query: 'jacket', action: 'pin', product_id: a.id })).error!.error,
    ).toMatchObject({ field: 'pin_position' });
    expect(
      (await rule({ name: 'x', match_query: 'jacket', action: 'boost', product_id: a.id })).error!.error,
    ).toMatchObject({ field: 'score_multiplier' });
    expect(
      (await rule({ name: 'x', match_query: 'jacket', action: 'boost', product_id: a.id, score_multiplier: 101 }))
        .response.status,
    ).toBe(400);
    expect(
      (await rule({ name: 'x', match_query: 'jacket', action: 'hide', product_id: 'prod_nope' })).error!.error,
    ).toMatchObject({ field: 'product_id' });
    // Changing the action through PATCH requires the matching parameter.
    const patched = await store.api.PATCH('/v1/search/merchandising/{id}', {
      params: { path: { id: first.data!.data.id } },
      body: { action: 'boost' },
    });
    expect(patched.error!.error).toMatchObject({ code: 'invalid_request', field: 'score_multiplier' });
    await store.api.DELETE('/v1/search/merchandising/{id}', { params: { path: { id: first.data!.data.id } } });
    await store.api.DELETE('/v1/search/merchandising/{id}', { params: { path: { id: other.data!.data.id } } });
  });

  test('boost and bury multiply the score; hide removes; all = every word; a deleted product does nothing', async () => {
    const before = await ids('jacket');
    const boost = (
      await rule({
        name: 'b',
        match_query: 'jacket',
        match_type: 'all',
        action: 'boost',
        product_id: before[2],
        score_multiplier: 100,
        priority: 5,
      })
    ).data!.data;
    expect((await ids('jacket'))[0]).toBe(before[2]);
    const patched = await store.api.PATCH('/v1/search/merchandising/{id}', {
      params: { path: { id: boost.id } },
      body: { action: 'bury', score_multiplier: 0.01 },
    });
    expect(patched.data!.data).toMatchObject({ action: 'bury', score_multiplier: 0.01 });
    expect((await ids('jacket')).at(-1)).toBe(before[2]);
    const hide = (await rule({ name: 'h', match_query: 'jacket', action: 'hide', product_id: b.id, priority: 10 }))
      .data!.data;
    const hidden = (await search(store.api, { q: 'rain jacket pro' })).products;
    expect(hidden.relaxation!.strict_total).toBe(0); // the only product with every word is hidden
    expect(hidden.data.map((p) => p.id)).not.toContain(b.id);
    expect((await search(store.api, { q: 'jacket' })).products.total).toBe(2);
    const list = (await store.api.GET('/v1/search/merchandising')).data!.data;
    expect(list.map((r) => r.id)).toEqual([hide.id, boost.id, expect.any(String)]);
    await store.api.DELETE('/v1/products/{id}', { params: { path: { id: b.id } } });
    expect(
      (await store.api.GET('/v1/search/merchandising/{id}', { params: { path: { id: hide.id } } })).response.status,
    ).toBe(200);
    await store.api.DELETE('/v1/search/merchandising/{id}', { params: { path: { id: hide.id } } });
    expect(
      (await store.api.GET('/v1/search/merchandising/{id}', { params: { path: { id: hide.id } } })).response.status,
    ).toBe(404);
  });
});

describe('suggest and analytics', () => {
  test('suggestions: popular queries with results first, then titles; typo-tolerant for longer prefixes; publishable key', async () => {
    // Past queries are suggested once 3 distinct clients searched them.
    for (const from of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      await search(store.api, { q: 'rain jacket' }, { 'X-Forwarded-For': from });
      await search(store.api, { q: 'raincoat' }, { 'X-Forwarded-For': from });
    }
    await flushSearchLog();
    const publishable = store.app.client(store.keys.publishable_test.token);
    const { data } = await publishable.GET('/v1/search/suggest', { params: { query: { q: 'rain' } } });
    expect(data!.data[0]).toEqual({ text: 'rain jacket', type: 'query' });
    expect(data!.data.map((s) => s.text)).not.toContain('raincoat');
    expect(data!.data).toContainEqual({ text: 'Rain Jacket Classic', type: 'product', id: a.id });
    const typo = (await publishable.GET('/v1/search/suggest', { params: { query: { q: 'campimg', limit: 3 } } })).data!
      .data;
    expect(typo).toContainEqual({ text: 'Camping Stove', type: 'product', id: unrelated.id });
    expect(
      (await publishable.GET('/v1/search/suggest', { params: { query: { q: 'r', limit: 11 } } })).response.status,
    ).toBe(400);
  });

  test('titles: each typed word starts a word of the title, in any order; a title starting with the prefix first, then shorter titles', async () => {
    const publishable = store.app.client(store.keys.publishable_test.token);
    const products = async (q: string) =>
      (await publishable.GET('/v1/search/suggest', { params: { query: { q, limit: 10 } } }))
        .data!.data.filter((s) => s.type === 'product')
        .map((s) => s.text);
    for (const title of ['Desk Lumen Lamp Large', 'Lumen Lamp', 'Lumen'])
      await createProduct(store.api, { title, variants: [{ title: 'One', price: 100 }] });
    expect(await products('lume')).toEqual(['Lumen', 'Lumen Lamp', 'Desk Lumen Lamp Large']);
    expect(await products('large lum')).toEqual(['Desk Lumen Lamp Large']);
    expect(await products('classic ja')).toEqual(['Rain Jacket Classic']);
    expect(await products('stove camp')).toEqual(['Camping Stove']);
    expect(await products('zzz')).toEqual([]);
  });

  test('top queries and zero-result queries by period, limit 1-100', async () => {
    await search(store.api, { q: 'Camping  Stove' });
    await search(store.api, { q: 'camping stove' });
    await flushSearchLog();
    const top = (await store.api.GET('/v1/search/analytics/top-queries', { params: { query: { period: '1d' } } })).data!
      .data;
    expect(top[0]).toMatchObject({ query: expect.any(String), count: expect.any(Number) });
    expect(top.find((t) => t.query === 'camping stove')).toEqual({
      query: 'camping stove',
      count: 2,
      clients: 1,
      avg_results: 1,
    });
    const zero = (
      await store.api.GET('/v1/search/analytics/zero-results', { params: { query: { period: '30d', limit: 5 } } })
    ).data!.data;
    expect(zero).toContainEqual({ query: 'raincoat', count: 3 });
    await store.app.deps.db
      .$executeRaw`UPDATE search_queries SET created_at = now() - interval '3 days' WHERE query = 'raincoat'`;
    const recent = (await store.api.GET('/v1/search/analytics/zero-results', { params: { query: { period: '1d' } } }))
      .data!.data;
    expect(recent.find((z) => z.query === 'raincoat')).toBeUndefined();
    expect(
      (await store.api.GET('/v1/search/analytics/top-queries', { params: { query: { limit: 101 } } })).response.status,
    ).toBe(400);
    const publishable = store.app.client(store.keys.publishable_test.token);
    expect((await publishable.GET('/v1/search/analytics/top-queries')).response.status).toBe(403);
  });
});
