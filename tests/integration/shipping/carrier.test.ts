import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CarrierGateway } from '../../../src/modules/shipping/carrier-gateway.js';
import { TtlCache } from '../../../src/modules/shipping/answer-cache.js';
import { CircuitBreaker } from '../../../src/modules/shipping/circuit-breaker.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import type { Logger } from '../../../src/shared/logger.js';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import {
  carrierRates,
  startCarrierReceiver,
  type CarrierBehavior,
  type CarrierReceiver,
} from '../../setup/carrier-receiver.js';
import { useStore } from '../../setup/store.js';
import { startTestApp } from '../../setup/test-app.js';

// Carrier callbacks go to a local HTTPS receiver with a self-signed certificate, which the app's outbound
// pool trusts (deps.outbound); the gateway's breakers and cache run on a clock the tests move.

type Lookup = components['schemas']['ShippingRateLookup'];

let now = Date.now();
const clock = () => now;
const logged: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
const record =
  (level: string) =>
  (message: string, fields: Record<string, unknown> = {}) =>
    void logged.push({ level, message, fields });
const log: Logger = {
  debug: record('debug'),
  info: record('info'),
  warn: record('warn'),
  error: record('error'),
  flush: async () => {},
};
const deps: { outbound?: OutboundAgent; carrierGateway?: CarrierGateway; log?: Logger } = {
  log,
  carrierGateway: new CarrierGateway({
    breaker: new CircuitBreaker({ now: clock }),
    cache: new TtlCache({ ttlMs: 60_000, maxEntries: 1_000, now: clock }),
  }),
};
let receiver: CarrierReceiver;
beforeAll(async () => {
  receiver = await startCarrierReceiver();
  deps.outbound = new OutboundAgent({ ca: receiver.cert });
});
afterAll(async () => {
  await receiver.close();
  await deps.outbound?.close();
});

// Registered after the receiver's beforeAll, so the app starts with the pool that trusts it.
const store = useStore({ app: { config: { allowPrivateNetworkTargets: true }, deps } });

let endpoints = 0;
/** A zone (US) with one flat rate (Standard, 990) whose callback is a fresh receiver endpoint behaving as given. */
async function carrierZone(behavior: CarrierBehavior) {
  const endpoint = `e${++endpoints}`;
  receiver.behave(endpoint, behavior);
  const { keys } = await createProject(store.app);
  const admin = store.app.client(keys.secret_test.token);
  const zone = await createZone(admin, { countries: ['US'], carrier_callback_url: receiver.url(endpoint) });
  const flat = await createRate(admin, zone.id, { name: 'Standard', price: 990, currency: 'USD' });
  return { endpoint, zone, flat, admin, storefront: store.app.client(keys.publishable_test.token) };
}

let subtotals = 6000;
/** A lookup for the US with a body no earlier lookup used (so the answer cache never serves it), unless given. */
async function lookup(client: CommerceClient, body: Partial<Lookup> = {}, headers: Record<string, string> = {}) {
  const started = Date.now();
  const { data, error, response } = await client.POST('/v1/shipping/rates', {
    body: { country: 'US', subtotal: ++subtotals, currency: 'USD', ...body },
    headers,
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(200);
  return { rates: data!.data, ms: Date.now() - started };
}
const flatOnly = (flat: { id: string }) => [expect.objectContaining({ id: flat.id, source: 'flat' })];
const callLogs = (zoneId: string) =>
  logged.filter((entry) => entry.message === 'carrier callback' && entry.fields.zone_id === zoneId);

describe("carrier callback (the zone's carrier_callback_url, merged into the lookup)", () => {
  test('the carrier rates are merged with the flat rates by price, source carrier, ids carrier_ + hash', async () => {
    const { zone, flat, storefront } = await carrierZone({
      kind: 'rates',
      rates: [
        {
          name: 'Express',
          description: 'Next day',
          price: 2500,
          currency: 'USD',
          min_delivery_days: 1,
          max_delivery_days: 1,
        },
        { name: 'Ground', price: 990, currency: 'USD' },
        { name: 'Saver', price: 500, currency: 'USD', description: null, min_delivery_days: 5, max_delivery_days: 8 },
      ],
    });
    const { rates } = await lookup(storefront);
    expect(rates).toEqual([
      {
        id: expect.stringMatching(/^carrier_[0-9a-f]{24}$/),
        name: 'Saver',
        description: null,
        price: 500,
        currency: 'USD',
        min_delivery_days: 5,
        max_delivery_days: 8,
        source: 'carrier',
      },
      {
        id: flat.id,
        name: 'Standard',
        description: null,
        price: 990,
        currency: 'USD',
        min_delivery_days: null,
        max_delivery_days: null,
        source: 'flat',
      },
      {
        id: expect.stringMatching(/^carrier_[0-9a-f]{24}$/),
        name: 'Ground',
        description: null,
        price: 990,
        currency: 'USD',
        min_delivery_days: null,
        max_delivery_days: null,
        source: 'carrier',
      },
      {
        id: expect.stringMatching(/^carrier_[0-9a-f]{24}$/),
        name: 'Express',
        description: 'Next day',
        price: 2500,
        currency: 'USD',
        min_delivery_days: 1,
        max_delivery_days: 1,
        source: 'carrier',
      },
    ]);
    // The same rate keeps its id from one lookup to the next.
    const again = await lookup(storefront);
    expect(again.rates.map((rate) => rate.id)).toEqual(rates.map((rate) => rate.id));
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({
      outcome: 'ok',
      rates: 3,
      duration_ms: expect.any(Number),
      host: `127.0.0.1:${receiver.port}`,
    });
  });

  test('the receiver sees a POST with the documented JSON body and headers', async () => {
    const { endpoint, storefront } = await carrierZone({ kind: 'rates', rates: [] });
    await lookup(
      storefront,
      { country: 'us', state: 'NY', postal_code: '10001', subtotal: 6000, items: [{ weight_grams: 450, quantity: 2 }] },
      { 'X-Request-Id': 'checkout-42' },
    );
    await lookup(storefront, { subtotal: 100 });
    const [first, second] = receiver.seenBy(endpoint);
    expect(first).toMatchObject({ method: 'POST', path: `/carrier/${endpoint}` });
    expect(first.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'commerce-api-carrier-callback/1',
      'x-request-id': 'checkout-42',
      host: `127.0.0.1:${receiver.port}`,
    });
    expect(JSON.parse(first.body)).toEqual({
      destination: { country: 'US', state: 'NY', postal_code: '10001' },
      items: [{ weight_grams: 450, quantity: 2 }],
      subtotal: 6000,
      currency: 'USD',
    });
    expect(JSON.parse(second.body)).toEqual({
      destination: { country: 'US', state: null, postal_code: null },
      items: [],
      subtotal: 100,
      currency: 'USD',
    });
  });

  test('of 12 carrier rates the first 10 answered are kept, shown with the flat rates by price', async () => {
    const { flat, storefront } = await carrierZone({ kind: 'rates', rates: carrierRates(12) });
    const { rates } = await lookup(storefront);
    const carriers = rates.filter((rate) => rate.source === 'carrier');
    expect(carriers.map((rate) => rate.name)).toEqual([
      'Carrier 10',
      'Carrier 9',
      'Carrier 8',
      'Carrier 7',
      'Carrier 6',
      'Carrier 5',
      'Carrier 4',
      'Carrier 3',
      'Carrier 2',
      'Carrier 1',
    ]);
    expect(rates).toHaveLength(11);
    expect(rates.map((rate) => rate.price)).toEqual([...rates.map((rate) => rate.price)].sort((a, b) => a - b));
    expect(rates[0]).toMatchObject({ id: flat.id, price: 990 }); // cheaper than the cheapest kept carrier rate (2100)
  });

  test('carrier rates in another currency than requested are dropped', async () => {
    const { storefront } = await carrierZone({
      kind: 'rates',
      rates: [
        { name: 'Dollar', price: 700, currency: 'USD' },
        { name: 'Euro', price: 600, currency: 'EUR' },
      ],
    });
    expect((await lookup(storefront)).rates.map((rate) => rate.name)).toEqual(['Dollar', 'Standard']);
  });
});

describe('failures give the flat rates only, never an error', () => {
  test.each<[string, CarrierBehavior, string]>([
    ['a 500', { kind: 'raw', status: 500, body: '{"error":"down"}' }, 'status'],
    [
      'invalid JSON',
      { kind: 'raw', status: 200, body: '<html>Service Unavailable</html>', contentType: 'text/html' },
      'invalid_json',
    ],
    [
      'a wrong shape',
      {
        kind: 'raw',
        status: 200,
        body: JSON.stringify({ rates: [{ name: 'Ground', price: '9.90', currency: 'USD' }] }),
      },
      'invalid_shape',
    ],
    ['no rates array', { kind: 'raw', status: 200, body: JSON.stringify({ quotes: [] }) }, 'invalid_shape'],
  ])('%s', async (_name, behavior, outcome) => {
    const { zone, flat, storefront } = await carrierZone(behavior);
    expect((await lookup(storefront)).rates).toEqual(flatOnly(flat));
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome, duration_ms: expect.any(Number) });
  });

  test('a redirect is not followed', async () => {
    const target = `r${++endpoints}`;
    receiver.behave(target, { kind: 'rates', rates: carrierRates(2) });
    const { endpoint, zone, flat, storefront } = await carrierZone({ kind: 'redirect', to: receiver.url(target) });
    expect((await lookup(storefront)).rates).toEqual(flatOnly(flat));
    expect(receiver.seenBy(endpoint)).toHaveLength(1);
    expect(receiver.seenBy(target)).toHaveLength(0);
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome: 'status', detail: 'answered HTTP 302' });
  });

  test('a carrier that does not answer: the lookup answers the flat rates after the 5 s budget', async () => {
    const { zone, flat, storefront } = await carrierZone({ kind: 'hang' });
    const { rates, ms } = await lookup(storefront);
    expect(rates).toEqual(flatOnly(flat));
    expect(ms).toBeGreaterThanOrEqual(4_900);
    expect(ms).toBeLessThan(6_500);
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome: 'timeout' });
  });

  test('a host that resolves to a private address while private targets are not allowed: refused before any connection', async () => {
    const strict = await startTestApp({ deps: { outbound: deps.outbound, log } });
    try {
      const endpoint = `p${++endpoints}`;
      receiver.behave(endpoint, { kind: 'rates', rates: carrierRates(2) });
      const { keys } = await createProject(strict);
      const admin = strict.client(keys.secret_test.token);
      // A host name passes the check on save; what it resolves to is checked on every call.
      const zone = await createZone(admin, {
        countries: ['US'],
        carrier_callback_url: `https://localhost:${receiver.port}/carrier/${endpoint}`,
      });
      const flat = await createRate(admin, zone.id, { name: 'Standard' });
      expect((await lookup(strict.client(keys.publishable_test.token))).rates).toEqual(flatOnly(flat));
      expect(receiver.seenBy(endpoint)).toHaveLength(0);
      expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome: 'private_address' });
    } finally {
      await strict.close();
    }
  });
});

describe('answer cache (60 s per zone and request body)', () => {
  test('a repeated lookup is answered from the cache; another body, or 60 s later, asks the carrier again', async () => {
    const { endpoint, storefront } = await carrierZone({ kind: 'rates', rates: carrierRates(2) });
    const body = { subtotal: 7777, items: [{ weight_grams: 100, quantity: 1 }] };
    const first = await lookup(storefront, body);
    const second = await lookup(storefront, body);
    expect(second.rates).toEqual(first.rates);
    expect(receiver.seenBy(endpoint)).toHaveLength(1);
    await lookup(storefront, { ...body, subtotal: 7778 });
    expect(receiver.seenBy(endpoint)).toHaveLength(2);
    now += 60_000;
    await lookup(storefront, body);
    expect(receiver.seenBy(endpoint)).toHaveLength(3);
  });

  test('failed answers are not cached', async () => {
    const { endpoint, storefront } = await carrierZone({ kind: 'raw', status: 503, body: '' });
    await lookup(storefront, { subtotal: 1234 });
    await lookup(storefront, { subtotal: 1234 });
    expect(receiver.seenBy(endpoint)).toHaveLength(2);
  });
});

describe('answer cache shared by the projects of a process', () => {
  test("one project's lookups never push another project's cached answers out", async () => {
    // The process's gateway with a bound of 8 answers, as another project's storefront would fill the real one.
    const deps = store.app.deps as { carrierGateway?: CarrierGateway };
    const original = deps.carrierGateway;
    deps.carrierGateway = new CarrierGateway({ cache: new TtlCache({ ttlMs: 60_000, maxEntries: 8, now: clock }) });
    try {
      const quiet = await carrierZone({ kind: 'rates', rates: carrierRates(2) });
      const body = { subtotal: 4242 };
      const first = await lookup(quiet.storefront, body);
      expect(receiver.seenBy(quiet.endpoint)).toHaveLength(1);
      const busy = await carrierZone({ kind: 'rates', rates: carrierRates(1) });
      for (let n = 0; n < 8; n++) await lookup(busy.storefront);
      expect(receiver.seenBy(busy.endpoint)).toHaveLength(8);
      // "A successful carrier answer is reused for 60 seconds for the same zone, URL and request body."
      expect((await lookup(quiet.storefront, body)).rates).toEqual(first.rates);
      expect(receiver.seenBy(quiet.endpoint)).toHaveLength(1);
    } finally {
      deps.carrierGateway = original;
    }
  });
});

describe('circuit breaker per zone', () => {
  test('after 3 consecutive failures the callback is skipped for 60 s (flat rates at once), then one trial call decides', async () => {
    const { endpoint, zone, flat, storefront } = await carrierZone({ kind: 'raw', status: 500, body: '' });
    for (let i = 0; i < 3; i++) expect((await lookup(storefront)).rates).toEqual(flatOnly(flat));
    expect(receiver.seenBy(endpoint)).toHaveLength(3);
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome: 'status', circuit: 'open' });

    // Open: not called at all, the carrier's recovery is not seen yet.
    receiver.behave(endpoint, { kind: 'rates', rates: carrierRates(1) });
    const skipped = await Promise.all([1, 2, 3, 4, 5].map(() => lookup(storefront)));
    for (const { rates } of skipped) expect(rates).toEqual(flatOnly(flat));
    expect(receiver.seenBy(endpoint)).toHaveLength(3);

    // Another zone's carrier is unaffected.
    const other = await carrierZone({ kind: 'rates', rates: carrierRates(1) });
    expect((await lookup(other.storefront)).rates).toHaveLength(2);

    now += 60_000;
    const trial = await lookup(storefront);
    expect(trial.rates.map((rate) => rate.source)).toEqual(['flat', 'carrier']);
    expect(receiver.seenBy(endpoint)).toHaveLength(4);
    expect(callLogs(zone.id).at(-1)!.fields).toMatchObject({ outcome: 'ok', trial: true });
    // Closed again: every (uncached) lookup calls.
    await lookup(storefront);
    await lookup(storefront);
    expect(receiver.seenBy(endpoint)).toHaveLength(6);
  });

  test('a failed trial opens the circuit again for 60 s', async () => {
    const { endpoint, flat, storefront } = await carrierZone({ kind: 'raw', status: 502, body: '' });
    for (let i = 0; i < 3; i++) await lookup(storefront);
    now += 60_000;
    expect((await lookup(storefront)).rates).toEqual(flatOnly(flat));
    expect(receiver.seenBy(endpoint)).toHaveLength(4);
    receiver.behave(endpoint, { kind: 'rates', rates: carrierRates(1) });
    now += 59_000;
    await lookup(storefront);
    expect(receiver.seenBy(endpoint)).toHaveLength(4);
    now += 1_000;
    expect((await lookup(storefront)).rates).toHaveLength(2);
    expect(receiver.seenBy(endpoint)).toHaveLength(5);
  });

  test("a new callback URL is not held up by the old URL's open circuit", async () => {
    const { endpoint, zone, admin, storefront } = await carrierZone({ kind: 'raw', status: 500, body: '' });
    for (let i = 0; i < 3; i++) await lookup(storefront);
    await lookup(storefront);
    expect(receiver.seenBy(endpoint)).toHaveLength(3);
    const fixed = `f${++endpoints}`;
    receiver.behave(fixed, { kind: 'rates', rates: carrierRates(1) });
    await admin.PATCH('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id } },
      body: { carrier_callback_url: receiver.url(fixed) },
    });
    expect((await lookup(storefront)).rates).toHaveLength(2);
    expect(receiver.seenBy(fixed)).toHaveLength(1);
  });

  test('a carrier that times out: three lookups wait out the budget, the next answers at once', async () => {
    const { endpoint, flat, storefront } = await carrierZone({ kind: 'hang' });
    const waits = await Promise.all([1, 2, 3].map(() => lookup(storefront)));
    for (const { rates, ms } of waits) {
      expect(rates).toEqual(flatOnly(flat));
      expect(ms).toBeGreaterThanOrEqual(4_900);
    }
    const fast = await lookup(storefront);
    expect(fast.rates).toEqual(flatOnly(flat));
    expect(fast.ms).toBeLessThan(1_000);
    expect(receiver.seenBy(endpoint)).toHaveLength(3);
  });
});
