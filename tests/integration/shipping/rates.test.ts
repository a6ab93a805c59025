import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { buildRate, createRate, createZone } from '../../factories/shipping.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';
import { sessionUrlOf } from '../../setup/test-app.js';
import { eventually, lockWaits } from '../../setup/wait.js';

const store = useStore();
const zoneEvents = async (zoneId: string) =>
  (await store.api.GET('/v1/events', { params: { query: { resource_id: zoneId, order: 'asc' } } })).data!.data;
const rateCount = async (zoneId: string) =>
  (await store.api.GET('/v1/shipping/zones/{id}', byId(zoneId))).data!.data.rate_count;
const postRate = (zoneId: string, body: Record<string, unknown>) =>
  store.api.POST('/v1/shipping/zones/{id}/rates', { params: { path: { id: zoneId } }, body: body as never });

describe('createShippingRate', () => {
  test('answers 201 with the defaults; the zone counts it and records shipping.zone.updated', async () => {
    const zone = await createZone(store.api);
    const rate = await createRate(store.api, zone.id, { name: 'Standard', price: undefined, currency: 'EUR' });
    expect(rate).toMatchObject({
      zone_id: zone.id,
      name: 'Standard',
      description: null,
      price: 0,
      currency: 'EUR',
      min_order_subtotal: null,
      max_order_subtotal: null,
      min_order_weight: null,
      max_order_weight: null,
      min_delivery_days: null,
      max_delivery_days: null,
      is_active: true,
      position: 0,
    });
    expect(rate.id).toMatch(/^shr_[0-9a-z]{26}$/);
    expect(await rateCount(zone.id)).toBe(1);
    const event = (await zoneEvents(zone.id)).at(-1)!;
    expect(event).toMatchObject({
      type: 'shipping.zone.updated',
      resource_type: 'shipping_zone',
      resource_id: zone.id,
    });
    expect(event.metadata.changes).toEqual({ [`rates.${rate.id}`]: { from: null, to: rate } });
  });

  test('keeps every field; a free-shipping threshold is price 0 with min_order_subtotal', async () => {
    const zone = await createZone(store.api);
    const body = {
      name: 'Free shipping',
      description: 'On orders of $50 or more.',
      price: 0,
      currency: 'USD',
      min_order_subtotal: 5000,
      max_order_subtotal: 100_000_000_000,
      min_order_weight: 0,
      max_order_weight: 2_000_000_000,
      min_delivery_days: 0,
      max_delivery_days: 365,
      is_active: false,
      position: 4,
    };
    const { data } = await postRate(zone.id, body);
    expect(data!.data).toMatchObject(body);
  });

  test('currency must be an ISO 4217 code that exists (400 naming it); lower case is 400 too', async () => {
    const zone = await createZone(store.api);
    const unknown = await postRate(zone.id, buildRate({ currency: 'ABC' }));
    expect(unknown.response.status).toBe(400);
    expect(unknown.error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'currency',
        message: 'currency ABC is not an ISO 4217 currency code; use one such as EUR or USD.',
      },
    });
    const lower = await postRate(zone.id, buildRate({ currency: 'usd' }));
    expect(lower.error!.error).toMatchObject({ code: 'invalid_request', field: 'currency' });
    const missing = await postRate(zone.id, { name: 'No currency' });
    expect(missing.error!.error).toMatchObject({
      code: 'invalid_request',
      field: 'currency',
      message: 'currency is required.',
    });
  });

  test.each([
    ['price', -1],
    ['price', 1.5],
    ['min_order_subtotal', -1],
    ['max_order_weight', -1],
    ['min_delivery_days', -1],
    ['max_delivery_days', 366],
    ['position', -1],
  ])('%s %p is 400', async (field, value) => {
    const zone = await createZone(store.api);
    const { error, response } = await postRate(zone.id, { ...buildRate(), [field]: value });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test.each([
    ['min_order_subtotal', 'max_order_subtotal', 5000, 4999],
    ['min_order_weight', 'max_order_weight', 1001, 1000],
    ['min_delivery_days', 'max_delivery_days', 5, 3],
  ])('%s above %s is 400 naming the maximum; equal bounds are fine', async (minField, maxField, min, max) => {
    const zone = await createZone(store.api);
    const { error, response } = await postRate(zone.id, { ...buildRate(), [minField]: min, [maxField]: max });
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: {
        code: 'invalid_request',
        field: maxField,
        message: `${maxField} (${max}) must not be below ${minField} (${min}).`,
      },
    });
    const equal = await postRate(zone.id, { ...buildRate(), [minField]: min, [maxField]: min });
    expect(equal.response.status).toBe(201);
  });

  test("404 for an unknown zone or another project's zone; 403 for a publishable key", async () => {
    const missing = await postRate('shz_00000000000000000000000000', buildRate());
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ error: { code: 'not_found', message: 'Shipping zone not found.' } });
    const other = await createProject(store.app);
    const foreign = await createZone(store.app.client(other.keys.secret_test.token));
    expect((await postRate(foreign.id, buildRate())).response.status).toBe(404);
    const zone = await createZone(store.api);
    const storefront = store.app.client(store.keys.publishable_test.token);
    const forbidden = await storefront.POST('/v1/shipping/zones/{id}/rates', {
      params: { path: { id: zone.id } },
      body: buildRate(),
    });
    expect(forbidden.response.status).toBe(403);
  });

  test('a rate created while its zone is being deleted answers 404, not 500, and leaves no rate', async () => {
    const zone = await createZone(store.api);
    const other = new pg.Client({ connectionString: sessionUrlOf(store.app) });
    await other.connect();
    try {
      // A zone deletion in progress: the row is deleted but not yet committed; the request waits for it.
      await other.query('BEGIN');
      await other.query('DELETE FROM shipping_zones WHERE id = $1', [zone.id]);
      const answer = postRate(zone.id, buildRate());
      const waiting = await eventually(async () => (await lockWaits(other)) === 1, { timeoutMs: 10_000 });
      expect(waiting).toBe(true);
      await other.query('COMMIT');
      const { error, response } = await answer;
      expect(response.status).toBe(404);
      expect(error).toEqual({ error: { code: 'not_found', message: 'Shipping zone not found.' } });
    } finally {
      await other.end();
    }
    expect(await store.app.deps.db.shippingRate.count({ where: { zoneId: zone.id } })).toBe(0);
  });

  test('an unknown field is 400 (strict bodies)', async () => {
    const zone = await createZone(store.api);
    const response = await fetch(`${store.app.baseUrl}/v1/shipping/zones/${zone.id}/rates`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...buildRate(), free_above: 5000 }),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'free_above' });
  });
});

describe('updateShippingRate', () => {
  test('changes the fields sent; null clears a bound or the description; records the changes on the zone', async () => {
    const zone = await createZone(store.api);
    const rate = await createRate(store.api, zone.id, {
      description: 'Ground',
      min_order_subtotal: 1000,
      max_order_weight: 5000,
    });
    const { data, response } = await store.api.PATCH('/v1/shipping/rates/{id}', {
      ...byId(rate.id),
      body: { price: 1290, min_order_subtotal: null, max_order_weight: null, description: null },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      id: rate.id,
      price: 1290,
      min_order_subtotal: null,
      max_order_weight: null,
      description: null,
      name: rate.name,
    });
    const event = (await zoneEvents(zone.id)).at(-1)!;
    expect(event.summary).toBe(
      `Shipping zone "${zone.name}": rate "${rate.name}" (${rate.id}) updated (description, price, min_order_subtotal, max_order_weight)`,
    );
    expect(event.metadata.changes).toEqual({
      [`rates.${rate.id}.description`]: { from: 'Ground', to: null },
      [`rates.${rate.id}.price`]: { from: 990, to: 1290 },
      [`rates.${rate.id}.min_order_subtotal`]: { from: 1000, to: null },
      [`rates.${rate.id}.max_order_weight`]: { from: 5000, to: null },
    });
  });

  test('bounds are checked against the stored other bound, naming the field sent', async () => {
    const zone = await createZone(store.api);
    const rate = await createRate(store.api, zone.id, {
      min_order_subtotal: 1000,
      max_order_subtotal: 5000,
      min_delivery_days: 2,
      max_delivery_days: 4,
    });
    const minAbove = await store.api.PATCH('/v1/shipping/rates/{id}', {
      ...byId(rate.id),
      body: { min_order_subtotal: 6000 },
    });
    expect(minAbove.error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'min_order_subtotal',
        message: 'min_order_subtotal (6000) must not be above max_order_subtotal (5000).',
      },
    });
    const maxBelow = await store.api.PATCH('/v1/shipping/rates/{id}', {
      ...byId(rate.id),
      body: { max_delivery_days: 1 },
    });
    expect(maxBelow.error!.error).toMatchObject({ field: 'max_delivery_days' });
    // Moving both at once, or clearing the other bound first, is fine.
    expect(
      (
        await store.api.PATCH('/v1/shipping/rates/{id}', {
          ...byId(rate.id),
          body: { min_order_subtotal: 6000, max_order_subtotal: 9000 },
        })
      ).response.status,
    ).toBe(200);
    expect(
      (await store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { max_delivery_days: null } }))
        .response.status,
    ).toBe(200);
    expect(
      (await store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { min_delivery_days: 30 } })).response
        .status,
    ).toBe(200);
  });

  test('two PATCHes sent together, each valid alone, cannot leave a minimum above its maximum', async () => {
    const zone = await createZone(store.api);
    const rates = await Promise.all(Array.from({ length: 20 }, () => createRate(store.api, zone.id)));
    // Per rate, one PATCH sets the minimum and one the maximum, at the same moment: of each pair the one checked
    // second sees the other's bound and answers 400.
    const answers = await Promise.all(
      rates.map((rate) =>
        Promise.all([
          store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { min_order_subtotal: 5000 } }),
          store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { max_order_subtotal: 1000 } }),
        ]),
      ),
    );
    for (const pair of answers) expect(pair.map((answer) => answer.response.status).sort()).toEqual([200, 400]);
    const stored = await store.app.deps.db.shippingRate.findMany({ where: { zoneId: zone.id } });
    expect(stored.filter((rate) => rate.minOrderSubtotal !== null && rate.maxOrderSubtotal !== null)).toEqual([]);
  });

  test('currency must exist; an unchanged PATCH records nothing; unknown rate 404; empty body 400', async () => {
    const zone = await createZone(store.api);
    const rate = await createRate(store.api, zone.id);
    const currency = await store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { currency: 'XYZ' } });
    expect(currency.error!.error).toMatchObject({ code: 'invalid_request', field: 'currency' });
    const before = (await zoneEvents(zone.id)).length;
    const same = await store.api.PATCH('/v1/shipping/rates/{id}', {
      ...byId(rate.id),
      body: { price: rate.price, name: rate.name },
    });
    expect(same.data!.data).toEqual(rate);
    expect(await zoneEvents(zone.id)).toHaveLength(before);
    const missing = await store.api.PATCH('/v1/shipping/rates/{id}', {
      ...byId('shr_00000000000000000000000000'),
      body: { price: 1 },
    });
    expect(missing.error).toEqual({ error: { code: 'not_found', message: 'Shipping rate not found.' } });
    expect((await store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: {} })).response.status).toBe(
      400,
    );
  });
});

describe('deleteShippingRate', () => {
  test('204; the zone no longer counts it; records the zone change; 404 afterwards', async () => {
    const zone = await createZone(store.api);
    const keep = await createRate(store.api, zone.id);
    const drop = await createRate(store.api, zone.id);
    expect((await store.api.DELETE('/v1/shipping/rates/{id}', byId(drop.id))).response.status).toBe(204);
    const read = await store.api.GET('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id }, query: { expand: ['rates'] } },
    });
    expect(read.data!.data.rate_count).toBe(1);
    expect(read.data!.data.rates!.map((rate) => rate.id)).toEqual([keep.id]);
    const event = (await zoneEvents(zone.id)).at(-1)!;
    expect(event.metadata.changes).toEqual({ [`rates.${drop.id}`]: { from: drop, to: null } });
    expect((await store.api.DELETE('/v1/shipping/rates/{id}', byId(drop.id))).response.status).toBe(404);
  });
});
