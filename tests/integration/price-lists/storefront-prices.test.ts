import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createGroup } from '../../factories/customer-group.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { domain: 'shop.example.com', domain_verified: true } });
let product: ProductResource;
/** Shoppers signed in: one on `wholesale` (own key), one in a group on `vip`, one without lists. */
const shoppers: Record<'wholesale' | 'vip' | 'plain', CommerceClient> = {} as never;
const shop = () => storefront(store.app, store.keys.publishable_test.token);

beforeAll(async () => {
  product = await createProduct(store.api, {
    variants: [
      { title: 'Small', price: 2500 },
      { title: 'Large', price: 3000, sale_price: 2800 },
    ],
  });
  const [small, large] = product.variants.map((v) => v.id);
  const wholesale = await createPriceList(store.api, { slug: 'wholesale' });
  await setPrices(store.api, wholesale.id, [
    { variant_id: small, amount: 2200 },
    { variant_id: small, min_quantity: 10, amount: 1900 },
    { variant_id: large, amount: 2600 },
  ]);
  const vip = await createPriceList(store.api, { slug: 'vip' });
  await setPrices(store.api, vip.id, [{ variant_id: small, amount: 2000 }]);
  const group = await createGroup(store.api, { active_price_key: 'vip' });
  for (const name of ['wholesale', 'vip', 'plain'] as const) {
    const session = await registerCustomer(shop());
    if (name === 'wholesale') {
      await store.api.PATCH('/v1/customers/{id}', {
        params: { path: { id: session.customer.id } },
        body: { active_price_key: 'wholesale' },
      });
    }
    if (name === 'vip') {
      await store.api.POST('/v1/customer-groups/{id}/members', {
        params: { path: { id: group.id } },
        body: { customer_ids: [session.customer.id] },
      });
    }
    shoppers[name] = signedIn(store.app, store.keys.publishable_test.token, session.access_token);
  }
});

const read = async (client: CommerceClient) => {
  const { data, error } = await client.GET('/v1/products/{id}', { params: { path: { id: product.id } } });
  expect(error).toBeUndefined();
  return data!.data as ProductResource & { customer_price?: number; variants: Array<{ customer_price?: number }> };
};
const pricesOf = (p: { customer_price?: number; variants: Array<{ customer_price?: number }> }) => [
  p.customer_price,
  ...p.variants.map((v) => v.customer_price),
];

describe('getProduct with a customer token', () => {
  test("shows each variant's price for that customer; price and sale_price stay list-free", async () => {
    const seen = await read(shoppers.wholesale);
    expect(pricesOf(seen)).toEqual([2200, 2200, 2600]);
    expect(seen.variants.map((v) => [v.price, v.sale_price])).toEqual([
      [2500, null],
      [3000, 2800],
    ]);
    expect([seen.price, seen.sale_price]).toEqual([product.price, product.sale_price]);
  });

  test("a customer in a group on a list gets the group's prices, else the variant's own (sale) price", async () => {
    expect(pricesOf(await read(shoppers.vip))).toEqual([2000, 2000, 2800]);
    expect(pricesOf(await read(shoppers.plain))).toEqual([2500, 2500, 2800]);
  });

  test('two customers on different lists never see each other’s prices, read after read', async () => {
    const order = ['wholesale', 'vip', 'wholesale', 'plain', 'vip'] as const;
    const seen = [];
    for (const name of order) seen.push(pricesOf(await read(shoppers[name])));
    expect(seen).toEqual([
      [2200, 2200, 2600],
      [2000, 2000, 2800],
      [2200, 2200, 2600],
      [2500, 2500, 2800],
      [2000, 2000, 2800],
    ]);
  });

  test('a key holding a comma or a bar is one key: it never shares the prices of customers with two keys', async () => {
    // One shopper in groups on vip and on wholesale; another in a group whose key is the text "vip,wholesale",
    // which names no list.
    const both = await registerCustomer(shop());
    for (const key of ['vip', 'wholesale']) {
      const group = await createGroup(store.api, { active_price_key: key });
      await store.api.POST('/v1/customer-groups/{id}/members', {
        params: { path: { id: group.id } },
        body: { customer_ids: [both.customer.id] },
      });
    }
    const odd = await registerCustomer(shop());
    const oddGroup = await createGroup(store.api, { active_price_key: 'vip,wholesale' });
    await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: oddGroup.id } },
      body: { customer_ids: [odd.customer.id] },
    });
    const token = store.keys.publishable_test.token;
    expect(pricesOf(await read(signedIn(store.app, token, both.access_token)))).toEqual([2000, 2000, 2600]);
    expect(pricesOf(await read(signedIn(store.app, token, odd.access_token)))).toEqual([2500, 2500, 2800]);
  });

  test('publishable reads without a customer token are unchanged: no customer_price', async () => {
    const anonymous = await read(shop());
    expect(anonymous).not.toHaveProperty('customer_price');
    expect(anonymous.variants.every((v) => !('customer_price' in v))).toBe(true);
    // A client that sends its key both as X-API-Key and as Bearer is not signed in.
    const twice = await fetch(`${store.app.baseUrl}/v1/products/${product.id}`, {
      headers: {
        'X-API-Key': store.keys.publishable_test.token,
        Authorization: `Bearer ${store.keys.publishable_test.token}`,
      },
    });
    expect(twice.status).toBe(200);
    expect(((await twice.json()) as { data: object }).data).not.toHaveProperty('customer_price');
    const merchant = (await store.api.GET('/v1/products/{id}', { params: { path: { id: product.id } } })).data!.data;
    expect(merchant).not.toHaveProperty('customer_price');
  });

  test('an invalid access token answers 401 instead of list-free prices', async () => {
    const bad = signedIn(store.app, store.keys.publishable_test.token, 'not-a-token');
    const answer = await bad.GET('/v1/products/{id}', { params: { path: { id: product.id } } });
    expect(answer.response.status).toBe(401);
    expect(answer.error!.error.code).toBe('unauthorized');
  });
});

describe('listProducts with a customer token', () => {
  test("every product carries that customer's prices; fields still cut the answer", async () => {
    const page = await shoppers.wholesale.GET('/v1/products', { params: { query: {} } });
    const listed = page.data!.data.find((p) => p.id === product.id) as Parameters<typeof pricesOf>[0];
    expect(pricesOf(listed)).toEqual([2200, 2200, 2600]);
    const sparse = await shoppers.wholesale.GET('/v1/products', { params: { query: { fields: ['customer_price'] } } });
    expect(sparse.data!.data).toEqual([{ id: product.id, customer_price: 2200 }]);
    const titled = await shoppers.vip.GET('/v1/products', { params: { query: { fields: ['title'] } } });
    expect(titled.data!.data).toEqual([{ id: product.id, title: product.title }]);
  });
});

describe('getVariant with a customer token', () => {
  test("shows that customer's price for the variant; other callers see none", async () => {
    const [small, large] = product.variants.map((v) => v.id);
    const priced = async (client: CommerceClient, id: string) => {
      const { data, error } = await client.GET('/v1/variants/{id}', { params: { path: { id } } });
      expect(error).toBeUndefined();
      return (data!.data as { customer_price?: number }).customer_price;
    };
    expect(await priced(shoppers.wholesale, small)).toBe(2200);
    expect(await priced(shoppers.wholesale, large)).toBe(2600);
    expect(await priced(shoppers.vip, small)).toBe(2000);
    expect(await priced(shoppers.plain, large)).toBe(2800);
    expect(await priced(shop(), small)).toBeUndefined();
    expect(await priced(store.api, small)).toBeUndefined();
  });
});

describe('searchCatalog with a customer token', () => {
  const hitFor = async (client: CommerceClient) => {
    const { data, error } = await client.GET('/v1/search', { params: { query: { q: product.title } } });
    expect(error).toBeUndefined();
    return data!.data.products.data.find((hit) => hit.id === product.id)!;
  };

  test("each hit carries that customer's lowest price; the cached answer never leaks it to another shopper", async () => {
    const order = ['wholesale', 'vip', 'plain', 'wholesale', 'vip'] as const;
    const seen = [];
    for (const name of order) seen.push((await hitFor(shoppers[name])).customer_price);
    expect(seen).toEqual([2200, 2000, 2500, 2200, 2000]);
    const anonymous = await hitFor(shop());
    expect(anonymous).not.toHaveProperty('customer_price');
    expect(anonymous.price).toBe(product.price);
  });

  test('a list change shows in the next search at once', async () => {
    const lists = await store.api.GET('/v1/price-lists', { params: { query: {} } });
    const vip = lists.data!.data.find((list) => list.slug === 'vip')!;
    await setPrices(store.api, vip.id, [{ variant_id: product.variants[0].id, amount: 1800 }]);
    expect((await hitFor(shoppers.vip)).customer_price).toBe(1800);
    await setPrices(store.api, vip.id, [{ variant_id: product.variants[0].id, amount: 2000 }]);
    expect((await hitFor(shoppers.vip)).customer_price).toBe(2000);
  });
});

describe('searchCatalog customer prices after a variant is re-priced', () => {
  test('a new sale price shows in the next signed-in search (the cached variant prices go stale)', async () => {
    const search = async () =>
      (
        await shoppers.plain.GET('/v1/search', { params: { query: { q: product.title } } })
      ).data!.data.products.data.find((hit) => hit.id === product.id)!.customer_price;
    expect(await search()).toBe(2500);
    const large = product.variants[1].id;
    await store.api.PATCH('/v1/variants/{id}', { params: { path: { id: large } }, body: { sale_price: 2100 } });
    expect(await search()).toBe(2100);
    await store.api.PATCH('/v1/variants/{id}', { params: { path: { id: large } }, body: { sale_price: 2800 } });
    expect(await search()).toBe(2500);
  });
});
