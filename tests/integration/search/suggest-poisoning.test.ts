import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { flushSearchLog } from '../../../src/modules/search/index.js';
import { purgeSearchLog } from '../../../src/modules/search/search-log-retention.js';
import { useStore } from '../../setup/store.js';
import { eventually } from '../../setup/wait.js';

// Behind a trusted proxy, so searches can come from distinct client addresses (X-Forwarded-For).
const store = useStore({ app: { config: { trustProxy: true } } });
const CLIENTS = ['203.0.113.1', '203.0.113.2', '203.0.113.3'];
const DAY = 86_400_000;

/** A storefront search (publishable key) from one client address. */
async function shopperSearch(q: string, from: string) {
  const shop = store.app.client(store.keys.publishable_test.token);
  const { data, error, response } = await shop.GET('/v1/search', {
    params: { query: { q } },
    headers: { 'X-Forwarded-For': from },
  });
  if (!data) throw new Error(`search ${q} answered ${response.status}: ${JSON.stringify(error)}`);
  return data.data.products;
}
const searchedBy = async (q: string, clients: string[]) => {
  for (const from of clients) await shopperSearch(q, from);
  await flushSearchLog();
};
async function suggestions(q: string, limit = 10) {
  const shop = store.app.client(store.keys.publishable_test.token);
  const { data, error, response } = await shop.GET('/v1/search/suggest', { params: { query: { q, limit } } });
  if (!data) throw new Error(`suggest ${q} answered ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
}
const pastQueries = async (q: string) => (await suggestions(q)).filter((s) => s.type === 'query').map((s) => s.text);

beforeAll(async () => {
  for (const title of ['Wool Socks', 'Sports Socks', 'Solar Lantern'])
    await createProduct(store.api, { title, variants: [{ title: 'One', price: 900 }] });
});

describe('past queries are suggested only when several clients searched them', () => {
  test('one client searching a query with markup four times plants no suggestion, and top queries rank it by its single client', async () => {
    const poison = 'socks OR "<img src=x onerror=alert(1)>"';
    for (let i = 0; i < 4; i++) await shopperSearch(poison, CLIENTS[0]);
    await flushSearchLog();
    const list = await suggestions('so');
    expect(list.filter((s) => s.type === 'query')).toEqual([]);
    expect(list.map((s) => s.text).join(' ')).not.toMatch(/[<>]/);
    const top = (await store.api.GET('/v1/search/analytics/top-queries', { params: { query: { period: '1d' } } })).data!
      .data;
    expect(top.find((t) => t.query.includes('onerror'))).toMatchObject({ count: 4, clients: 1 });
  });

  test('the same markup query from many clients is still never suggested (not plain words of the catalog)', async () => {
    await searchedBy('socks OR "<img src=x onerror=alert(1)>"', [...CLIENTS, '203.0.113.4']);
    expect(await pastQueries('so')).toEqual([]);
  });

  test('a query is suggested from the third distinct client on; repeats of one client do not count', async () => {
    await searchedBy('wool socks', [CLIENTS[0], CLIENTS[0], CLIENTS[0], CLIENTS[1], CLIENTS[1]]);
    expect(await pastQueries('wo')).toEqual([]);
    await searchedBy('wool socks', [CLIENTS[2]]);
    expect(await pastQueries('wo')).toEqual(['wool socks']);
  });

  test('a query whose words the catalog does not hold is not suggested, even when relaxation found results', async () => {
    const products = await shopperSearch('socks casino', CLIENTS[0]);
    expect(products.total).toBeGreaterThan(0); // relaxed to "socks"
    await searchedBy('socks casino', CLIENTS);
    await searchedBy('socks', CLIENTS);
    expect(await pastQueries('socks')).toEqual(['socks']);
  });

  test('a query without results is not suggested', async () => {
    await searchedBy('solarium', CLIENTS);
    expect(await pastQueries('sol')).toEqual([]);
  });

  test('a title with markup is never suggested', async () => {
    await createProduct(store.api, {
      title: 'Sock <b onmouseover=x>Bundle</b>',
      variants: [{ title: 'One', price: 1 }],
    });
    const texts = (await suggestions('sock')).map((s) => s.text);
    expect(texts).toContain('Wool Socks');
    expect(texts.join(' ')).not.toContain('<');
  });
});

describe('blocked suggestions', () => {
  test('a blocked query is never suggested, as typed or as the corrected form of another; unblocking brings it back', async () => {
    await searchedBy('sports socks', CLIENTS);
    await searchedBy('sprots socks', CLIENTS); // corrected to "sports socks"
    expect(await pastQueries('sp')).toEqual(['sports socks']);

    const created = await store.api.POST('/v1/search/suggestion-blocks', { body: { query: '  Sports  "Socks" ' } });
    expect(created.response.status).toBe(201);
    const block = created.data!.data;
    expect(block).toEqual({
      id: expect.stringMatching(/^sblk_/),
      query: 'sports socks',
      created_at: expect.any(String),
    });
    expect(await pastQueries('sp')).toEqual([]);
    await searchedBy('sports socks', ['203.0.113.9', '203.0.113.10']);
    expect(await pastQueries('sp')).toEqual([]);

    const again = await store.api.POST('/v1/search/suggestion-blocks', { body: { query: 'sports socks' } });
    expect(again.response.status).toBe(409);
    expect(again.error!.error).toMatchObject({ code: 'conflict', field: 'query' });

    const listed = (await store.api.GET('/v1/search/suggestion-blocks', { params: { query: { sort: 'query' } } }))
      .data!;
    expect(listed.data).toContainEqual(block);
    expect(listed.pagination.has_more).toBe(false);
    expect(
      (await store.api.GET('/v1/search/suggestion-blocks/{id}', { params: { path: { id: block.id } } })).data!.data,
    ).toEqual(block);

    const removed = await store.api.DELETE('/v1/search/suggestion-blocks/{id}', { params: { path: { id: block.id } } });
    expect(removed.response.status).toBe(204);
    expect(await pastQueries('sp')).toEqual(['sports socks']);
    expect(
      (await store.api.DELETE('/v1/search/suggestion-blocks/{id}', { params: { path: { id: block.id } } })).response
        .status,
    ).toBe(404);
  });

  test('blocks take a secret key; a query without letters or digits is 400', async () => {
    const shop = store.app.client(store.keys.publishable_test.token);
    expect((await shop.GET('/v1/search/suggestion-blocks')).response.status).toBe(403);
    const empty = await store.api.POST('/v1/search/suggestion-blocks', { body: { query: '"" !!' } });
    expect(empty.response.status).toBe(400);
    expect(empty.error!.error).toMatchObject({ code: 'invalid_request', field: 'query' });
  });
});

describe('the search log is purged past the longest analytics period', () => {
  test('searches, clients and totals older than 30 days are deleted; a query loses the clients that aged out', async () => {
    await searchedBy('solar lantern', CLIENTS);
    const db = store.app.deps.db;
    const old = new Date(Date.now() - 31 * DAY);
    // Two of the three clients searched long ago; the query itself was searched recently.
    await db.$executeRaw`UPDATE search_query_clients SET last_searched_at = ${old}
      WHERE query = 'solar lantern' AND client_hash IN (
        SELECT client_hash FROM search_query_clients WHERE query = 'solar lantern' ORDER BY client_hash LIMIT 2)`;
    await db.$executeRaw`UPDATE search_queries SET created_at = ${old} WHERE query = 'wool socks'`;
    await db.$executeRaw`UPDATE search_query_stats SET last_searched_at = ${old} WHERE query = 'solarium'`;
    await db.$executeRaw`UPDATE search_query_clients SET last_searched_at = ${old} WHERE query = 'solarium'`;
    expect(await pastQueries('solar')).toEqual(['solar lantern']);

    const purged = await purgeSearchLog(db);
    expect(purged).toMatchObject({ stats: 1, clients: 5 });
    expect(purged.queries).toBeGreaterThanOrEqual(6);
    expect(await db.searchQuery.count({ where: { query: 'wool socks' } })).toBe(0);
    expect(
      await db.searchQueryStat.findUnique({
        where: { projectId_query: { projectId: store.project.id, query: 'solarium' } },
      }),
    ).toBeNull();
    const stat = await db.searchQueryStat.findUnique({
      where: { projectId_query: { projectId: store.project.id, query: 'solar lantern' } },
    });
    expect(stat?.clientCount).toBe(1);
    // The purge wrote in SQL: cached suggestions drop when its change notification arrives.
    expect(await eventually(async () => (await pastQueries('solar')).length === 0)).toBe(true);
  });
});
