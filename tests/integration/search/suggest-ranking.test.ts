import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { flushSearchLog } from '../../../src/modules/search/index.js';
import { search as searchAnswer } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// Behind a trusted proxy, so searches can come from distinct client addresses (X-Forwarded-For).
const store = useStore({ app: { config: { trustProxy: true } } });
// Past queries are suggested once 3 distinct clients searched them.
const CLIENTS = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];

const suggest = async (q: string, limit = 5) => {
  const publishable = store.app.client(store.keys.publishable_test.token);
  const { data, error, response } = await publishable.GET('/v1/search/suggest', { params: { query: { q, limit } } });
  if (!data) throw new Error(`suggest ${q} answered ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
};
const search = async (q: string, from?: string) =>
  (await searchAnswer(store.api, { q }, from ? { 'X-Forwarded-For': from } : {})).products;
const searchByClients = async (q: string) => {
  for (const from of CLIENTS) await search(q, from);
};

let storm: ProductResource;
let rain: ProductResource;

beforeAll(async () => {
  const make = (title: string) => createProduct(store.api, { title, variants: [{ title: 'M', price: 100 }] });
  storm = await make('Storm Jacket');
  rain = await make('Lightweight Packable Rain Jacket');
  await make('Jacquard Scarf');
  await make('Lantern');
});

describe('suggestions', () => {
  test('a past query typed with a typo is suggested corrected, never as typed; repeats merge', async () => {
    expect((await search('jackt')).total).toBe(2); // found through its correction
    await searchByClients('jacket');
    await searchByClients('jackt');
    await flushSearchLog();
    const list = await suggest('j');
    expect(list[0]).toEqual({ text: 'jacket', type: 'query' });
    expect(list.map((s) => s.text)).not.toContain('jackt');
    expect(list.filter((s) => s.type === 'query')).toHaveLength(1);
  });

  test('past queries take at most half the list: the titles whose words start with the prefix keep room', async () => {
    for (const q of ['jacket storm', 'jacket rain', 'jacquard', 'jacket'] as const) await searchByClients(q);
    await flushSearchLog();
    const list = await suggest('jac', 5);
    expect(list.filter((s) => s.type === 'query')).toHaveLength(3);
    expect(list.slice(3)).toEqual([
      { text: 'Jacquard Scarf', type: 'product', id: expect.any(String) },
      { text: 'Storm Jacket', type: 'product', id: storm.id },
    ]);
    // The title starting with the prefix, then those with a word starting with it, shorter first.
    const titles = (await suggest('jac', 10)).filter((s) => s.type === 'product').map((s) => s.text);
    expect(titles).toEqual(['Jacquard Scarf', 'Storm Jacket', rain.title]);
  });

  test('many products sharing a title give one suggestion each title: the list is still full, shortest first', async () => {
    const make = (title: string) => createProduct(store.api, { title, variants: [{ title: 'M', price: 100 }] });
    for (let i = 0; i < 12; i++) await make('Wander Tote');
    for (const title of ['Wander Backpack', 'Wander Duffel Bag', 'Wander Hip Pack', 'Wander Sling']) await make(title);
    expect((await suggest('wan', 5)).map((s) => s.text)).toEqual([
      'Wander Tote',
      'Wander Sling',
      'Wander Backpack', // as long as the next: alphabetically
      'Wander Hip Pack',
      'Wander Duffel Bag',
    ]);
  });

  test('a title starting with the prefix ranks above titles with a word starting with it; typo matches when nothing starts so', async () => {
    const titles = async (q: string) => (await suggest(q, 10)).filter((s) => s.type === 'product').map((s) => s.text);
    expect(await titles('jacq')).toEqual(['Jacquard Scarf']);
    expect(await titles('lanterm')).toEqual(['Lantern']);
  });
});
