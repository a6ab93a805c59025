import { describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

type Lookup = components['schemas']['ShippingRateLookup'];

const store = useStore();

/** A project of its own (zones are matched per project) with its secret and publishable test clients. */
async function shop(overrides: Parameters<typeof createProject>[1] = {}) {
  const { keys } = await createProject(store.app, overrides);
  return {
    admin: store.app.client(keys.secret_test.token),
    storefront: store.app.client(keys.publishable_test.token),
    keys,
  };
}

async function lookup(client: CommerceClient, body: Partial<Lookup>) {
  const { data, error, response } = await client.POST('/v1/shipping/rates', {
    body: { country: 'US', subtotal: 6000, currency: 'USD', ...body },
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(200);
  return data!.data;
}
const names = async (client: CommerceClient, body: Partial<Lookup>) =>
  (await lookup(client, body)).map((rate) => rate.name);

describe('lookupShippingRates: the Done-when walk-through', () => {
  test('US/CA zone with a flat and a free-shipping rate, a rest-of-world zone; US 6000 lists both US rates free first; FR the rest-of-world rate; a second rest-of-world zone is 409', async () => {
    const { admin, storefront } = await shop();
    const northAmerica = await createZone(admin, { name: 'North America', countries: ['US', 'CA'] });
    const standard = await createRate(admin, northAmerica.id, {
      name: 'Standard',
      price: 990,
      currency: 'USD',
      min_delivery_days: 3,
      max_delivery_days: 5,
    });
    const free = await createRate(admin, northAmerica.id, {
      name: 'Free shipping',
      price: 0,
      currency: 'USD',
      min_order_subtotal: 5000,
    });
    const world = await createZone(admin, { name: 'Rest of world', countries: [], is_rest_of_world: true });
    const international = await createRate(admin, world.id, { name: 'International', price: 2500, currency: 'USD' });

    expect(await lookup(storefront, { country: 'US', subtotal: 6000 })).toEqual([
      {
        id: free.id,
        name: 'Free shipping',
        description: null,
        price: 0,
        currency: 'USD',
        min_delivery_days: null,
        max_delivery_days: null,
        source: 'flat',
      },
      {
        id: standard.id,
        name: 'Standard',
        description: null,
        price: 990,
        currency: 'USD',
        min_delivery_days: 3,
        max_delivery_days: 5,
        source: 'flat',
      },
    ]);
    expect(await lookup(storefront, { country: 'FR', subtotal: 6000 })).toEqual([
      {
        id: international.id,
        name: 'International',
        description: null,
        price: 2500,
        currency: 'USD',
        min_delivery_days: null,
        max_delivery_days: null,
        source: 'flat',
      },
    ]);
    const second = await admin.POST('/v1/shipping/zones', { body: { name: 'Elsewhere', is_rest_of_world: true } });
    expect(second.response.status).toBe(409);
    expect(second.error!.error.code).toBe('conflict');
  });
});

describe('which zone: the first active one listing the country, else rest of world', () => {
  test('the first active zone by position that lists the country; inactive zones are passed over', async () => {
    const { admin, storefront } = await shop();
    const later = await createZone(admin, { name: 'Later', countries: ['US'], position: 5 });
    const first = await createZone(admin, { name: 'First', countries: ['CA', 'US'], position: 1 });
    const inactive = await createZone(admin, { name: 'Inactive', countries: ['US'], position: 0, is_active: false });
    for (const zone of [later, first, inactive]) await createRate(admin, zone.id, { name: `${zone.name} rate` });
    expect(await names(storefront, { country: 'US' })).toEqual(['First rate']);
    expect(await names(storefront, { country: 'ca' })).toEqual(['First rate']);
    await admin.PATCH('/v1/shipping/zones/{id}', { params: { path: { id: first.id } }, body: { is_active: false } });
    expect(await names(storefront, { country: 'US' })).toEqual(['Later rate']);
  });

  test('no zone lists the country: the active rest-of-world zone; an inactive one is not used and the answer is []', async () => {
    const { admin, storefront } = await shop();
    const us = await createZone(admin, { countries: ['US'] });
    await createRate(admin, us.id, { name: 'US' });
    expect(await lookup(storefront, { country: 'JP' })).toEqual([]);
    const world = await createZone(admin, { is_rest_of_world: true, countries: [], position: 0 });
    await createRate(admin, world.id, { name: 'World' });
    expect(await names(storefront, { country: 'JP' })).toEqual(['World']);
    // A zone listing the country wins over the rest-of-world zone, whatever their positions.
    expect(await names(storefront, { country: 'US' })).toEqual(['US']);
    await admin.PATCH('/v1/shipping/zones/{id}', { params: { path: { id: world.id } }, body: { is_active: false } });
    expect(await lookup(storefront, { country: 'JP' })).toEqual([]);
  });

  test("a project without zones answers []; another project's zones never count", async () => {
    const { storefront } = await shop();
    const { admin: otherAdmin } = await shop();
    const zone = await createZone(otherAdmin, { countries: ['US'], is_rest_of_world: true });
    await createRate(otherAdmin, zone.id);
    expect(await lookup(storefront, { country: 'US' })).toEqual([]);
  });

  test('the matched zone without applicable rates answers [] (no fall-through to other zones)', async () => {
    const { admin, storefront } = await shop();
    await createZone(admin, { countries: ['US'] });
    const world = await createZone(admin, { is_rest_of_world: true });
    await createRate(admin, world.id);
    expect(await lookup(storefront, { country: 'US' })).toEqual([]);
  });
});

describe('which rates: currency, subtotal and weight bounds', () => {
  test('subtotal bounds are inclusive: 4999 / 5000 / 10000 / 10001 against min 5000 and max 10000', async () => {
    const { admin, storefront } = await shop();
    const zone = await createZone(admin, { countries: ['US'] });
    await createRate(admin, zone.id, { name: 'From 5000', min_order_subtotal: 5000 });
    await createRate(admin, zone.id, { name: 'Up to 10000', max_order_subtotal: 10000 });
    expect(await names(storefront, { subtotal: 4999 })).toEqual(['Up to 10000']);
    expect((await names(storefront, { subtotal: 5000 })).sort()).toEqual(['From 5000', 'Up to 10000']);
    expect((await names(storefront, { subtotal: 10000 })).sort()).toEqual(['From 5000', 'Up to 10000']);
    expect(await names(storefront, { subtotal: 10001 })).toEqual(['From 5000']);
    expect(await names(storefront, { subtotal: 0 })).toEqual(['Up to 10000']);
  });

  test('weight is the sum of weight_grams × quantity; bounds inclusive; no items weigh 0', async () => {
    const { admin, storefront } = await shop();
    const zone = await createZone(admin, { countries: ['US'] });
    await createRate(admin, zone.id, { name: 'Light', price: 500, max_order_weight: 2000 });
    await createRate(admin, zone.id, { name: 'Heavy', price: 1500, min_order_weight: 2001 });
    await createRate(admin, zone.id, { name: 'Band', price: 1000, min_order_weight: 1000, max_order_weight: 3000 });
    const items = (grams: number) => [
      { weight_grams: grams / 4, quantity: 2 },
      { weight_grams: grams / 2, quantity: 1 },
    ];
    expect(await names(storefront, {})).toEqual(['Light']);
    expect(await names(storefront, { items: [{ weight_grams: 333, quantity: 3 }] })).toEqual(['Light']); // 999 g
    expect(await names(storefront, { items: items(1000) })).toEqual(['Light', 'Band']);
    expect(await names(storefront, { items: items(2000) })).toEqual(['Light', 'Band']);
    expect(await names(storefront, { items: [{ weight_grams: 2001, quantity: 1 }] })).toEqual(['Band', 'Heavy']);
    expect(await names(storefront, { items: items(3000) })).toEqual(['Band', 'Heavy']);
    expect(await names(storefront, { items: [{ weight_grams: 1, quantity: 3001 }] })).toEqual(['Heavy']);
  });

  test('only active rates in the requested currency', async () => {
    const { admin, storefront } = await shop();
    const zone = await createZone(admin, { countries: ['DE'] });
    await createRate(admin, zone.id, { name: 'Euro', currency: 'EUR' });
    await createRate(admin, zone.id, { name: 'Dollar', currency: 'USD' });
    await createRate(admin, zone.id, { name: 'Off', currency: 'EUR', is_active: false });
    expect(await names(storefront, { country: 'DE', currency: 'EUR' })).toEqual(['Euro']);
    expect(await names(storefront, { country: 'DE', currency: 'USD' })).toEqual(['Dollar']);
    expect(await lookup(storefront, { country: 'DE', currency: 'GBP' })).toEqual([]);
  });
});

describe('free-shipping thresholds (price 0 with min_order_subtotal) and the order of the answer', () => {
  test('price ascending; equal prices by name', async () => {
    const { admin, storefront } = await shop();
    const zone = await createZone(admin, { countries: ['US'] });
    await createRate(admin, zone.id, { name: 'Express', price: 2500, position: 0 });
    await createRate(admin, zone.id, { name: 'Standard', price: 990, position: 1 });
    await createRate(admin, zone.id, { name: 'Economy', price: 990, position: 2 });
    await createRate(admin, zone.id, { name: 'Free over $50', price: 0, min_order_subtotal: 5000, position: 3 });
    expect(await names(storefront, { subtotal: 6000 })).toEqual(['Free over $50', 'Economy', 'Standard', 'Express']);
    expect(await names(storefront, { subtotal: 4000 })).toEqual(['Economy', 'Standard', 'Express']);
  });
});

describe('input and keys', () => {
  test('an unknown country or currency is 400 naming the field', async () => {
    const { storefront } = await shop();
    const country = await storefront.POST('/v1/shipping/rates', {
      body: { country: 'XX', subtotal: 100, currency: 'USD' },
    });
    expect(country.response.status).toBe(400);
    expect(country.error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'country',
        message: 'country XX is not an ISO 3166-1 alpha-2 country code.',
      },
    });
    const currency = await storefront.POST('/v1/shipping/rates', {
      body: { country: 'US', subtotal: 100, currency: 'QQQ' },
    });
    expect(currency.error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'currency',
        message: 'currency QQQ is not an ISO 4217 currency code; use one such as EUR or USD.',
      },
    });
  });

  test.each([
    [{ subtotal: 100, currency: 'USD' }, 'country'],
    [{ country: 'US', currency: 'USD' }, 'subtotal'],
    [{ country: 'US', subtotal: 100 }, 'currency'],
    [{ country: 'USA', subtotal: 100, currency: 'USD' }, 'country'],
    [{ country: 'US', subtotal: -1, currency: 'USD' }, 'subtotal'],
    [{ country: 'US', subtotal: 10.5, currency: 'USD' }, 'subtotal'],
    [{ country: 'US', subtotal: 100, currency: 'USD', state: 'x'.repeat(101) }, 'state'],
    [{ country: 'US', subtotal: 100, currency: 'USD', postal_code: '1'.repeat(21) }, 'postal_code'],
    [
      { country: 'US', subtotal: 100, currency: 'USD', items: [{ weight_grams: -1, quantity: 1 }] },
      'items[0].weight_grams',
    ],
    [{ country: 'US', subtotal: 100, currency: 'USD', items: [{ weight_grams: 1, quantity: 0 }] }, 'items[0].quantity'],
    [{ country: 'US', subtotal: 100, currency: 'USD', items: [{ weight_grams: 1 }] }, 'items[0].quantity'],
    [{ country: 'US', subtotal: 100, currency: 'USD', coupon: 'X' }, 'coupon'],
  ])('%j is 400 on %s', async (body, field) => {
    const response = await fetch(`${store.app.baseUrl}/v1/shipping/rates`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${store.keys.publishable_test.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.field).toBe(field);
  });

  test('malformed JSON is 400 invalid_request', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/shipping/rates`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${store.keys.publishable_test.token}`, 'Content-Type': 'application/json' },
      body: '{"country": "US",',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });

  test('publishable and secret keys may look up; a live publishable key needs a verified domain; no key is 401', async () => {
    const { admin, keys } = await shop({ domain: 'unverified.example.com', domain_verified: false });
    const zone = await createZone(admin, { countries: ['US'] });
    await createRate(admin, zone.id, { name: 'Standard' });
    expect(await names(store.app.client(keys.publishable_test.token), {})).toEqual(['Standard']);
    expect(await names(admin, {})).toEqual(['Standard']);
    const live = await store.app
      .client(keys.publishable_live.token)
      .POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 1, currency: 'USD' } });
    expect(live.response.status).toBe(403);
    expect(live.error!.error.code).toBe('domain_not_verified');
    const anonymous = await store.app
      .client()
      .POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 1, currency: 'USD' } });
    expect(anonymous.response.status).toBe(401);
  });
});
