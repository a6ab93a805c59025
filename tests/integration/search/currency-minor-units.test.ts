import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import { search } from '../../setup/requests.js';

// 1 USD = 150 JPY = 0.3 KWD. Minor units: a cent (1/100 USD), a yen (JPY has none smaller), a fils (1/1000 KWD).
const store = useStore({ project: { currency: 'USD', exchange_rates: { JPY: 150, KWD: 0.3 } } });

beforeAll(async () => {
  await createProduct(store.api, { title: 'Enamel Mug', variants: [{ title: 'Blue', price: 1990 }] });
});

describe('searchCatalog currency', () => {
  test('converts between currencies with different minor units: $19.90 is ¥2985, not ¥298,500', async () => {
    const result = await search(store.api, { q: 'mug', currency: 'JPY' });
    expect(result.products.data.map((p) => [p.price, p.currency])).toEqual([[2985, 'JPY']]);
    expect(result.products.facets!.price).toEqual({ min: 2985, max: 2985 });
    // price filters are in minor units of `currency` too: yen.
    expect((await search(store.api, { q: 'mug', currency: 'JPY', price_max: 3000 })).products.total).toBe(1);
    expect((await search(store.api, { q: 'mug', currency: 'JPY', price_max: 2984 })).products.total).toBe(0);
  });

  test('three-decimal currencies: $19.90 is 5.970 KWD, 5970 fils', async () => {
    const result = await search(store.api, { q: 'mug', currency: 'KWD' });
    expect(result.products.data.map((p) => [p.price, p.currency])).toEqual([[5970, 'KWD']]);
  });
});
