import { beforeAll, describe, expect, test } from '@jest/globals';
import { seedDemoCatalog } from '../../../src/seed/demo-catalog.js';
import { search as searchAnswer } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();

const search = async (q: string) => (await searchAnswer(store.api, { q, explain: true })).products;

beforeAll(async () => {
  const project = await store.app.deps.db.project.findUniqueOrThrow({ where: { id: store.project.id } });
  await seedDemoCatalog(store.app.deps, project, store.keys.secret_test.id);
}, 600_000); // 60 products with stock at two locations, through the services, on a machine that may be busy

describe('shoppers typing sentences and titles, on the demo catalogue', () => {
  test('a sentence naming a product type and a material, with words no product holds: those products first', async () => {
    const result = await search('comfortable linen shirt for a summer wedding');
    expect(result.relaxation).toMatchObject({ strict_total: 0, dropped_words: ['comfortable', 'summer', 'wedding'] });
    const linen = result.data.filter((p) => p.product_type === 'Shirts' && /linen/i.test(p.title));
    expect(linen.length).toBeGreaterThanOrEqual(2);
    expect(result.data.slice(0, linen.length)).toEqual(linen);
    expect(result.data[0].explain!.dropped_words).toEqual(['comfortable', 'summer', 'wedding']);
    // Then the other shirts: one word matched, the head noun.
    expect(result.data[linen.length].product_type).toBe('Shirts');
  });

  test('the head noun of a sentence decides between products matching as many words', async () => {
    const result = await search('warm merino beanie for winter hikes');
    expect(result.data[0]).toMatchObject({ title: 'Northpeak Merino Beanie', relaxed: true });
    expect(result.data[0].explain!.dropped_words).toEqual(expect.arrayContaining(['warm']));
  });

  test('a full product title returns that product first and products of its kind after it', async () => {
    const result = await search('Stormline Insulated Hoodie');
    expect(result.data[0]).toMatchObject({ title: 'Stormline Insulated Hoodie', relaxed: false });
    expect(result.data.length).toBeGreaterThan(5);
    expect(result.data.slice(1, 6).every((p) => p.product_type === 'Jackets' && p.relaxed)).toBe(true);
  });
});
