import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import { carrierRates, startCarrierReceiver } from '../../setup/carrier-receiver.js';
import { createTestDatabase } from '../../setup/database.js';
import { exited, startMain, type Cleanups } from '../../setup/process.js';

// `npm start` as a deployment runs it: the carrier's self-signed certificate is trusted only through
// Node's NODE_EXTRA_CA_CERTS, and loopback targets are allowed by ALLOW_PRIVATE_NETWORK_TARGETS.

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('shipping with the demo keys on npm start, a carrier over HTTPS included', () => {
  test('zones and rates, the lookups, 409 for a second rest-of-world zone, 10 of 12 carrier rates, and a sleeping carrier', async () => {
    const receiver = await startCarrierReceiver();
    cleanups.push(receiver.close);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shipping-main-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, 'carrier-ca.pem'), receiver.cert);
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const { child, baseUrl } = await startMain(
      {
        DATABASE_URL: database.url,
        DEMO_PROJECT: 'true',
        DATA_DIR: dir,
        RUN_JOBS: 'false',
        RESPONSE_CHECK: 'true',
        ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
        NODE_EXTRA_CA_CERTS: path.join(dir, 'carrier-ca.pem'),
      },
      cleanups,
    );
    const demo = JSON.parse(readFileSync(path.join(dir, 'demo.json'), 'utf8'));
    const admin = createCommerceClient({ baseUrl, apiKey: demo.keys.secret_test.token });
    const storefront = createCommerceClient({ baseUrl, apiKey: demo.keys.publishable_test.token });

    // The demo project comes with zones of its own (US, Europe, rest of world): this test sets up its own.
    for (const demoZone of (await admin.GET('/v1/shipping/zones', { params: { query: { limit: 100 } } })).data!.data)
      expect(
        (await admin.DELETE('/v1/shipping/zones/{id}', { params: { path: { id: demoZone.id } } })).response.status,
      ).toBe(204);

    const zone = (await admin.POST('/v1/shipping/zones', { body: { name: 'US and Canada', countries: ['US', 'CA'] } }))
      .data!.data;
    const flat = (
      await admin.POST('/v1/shipping/zones/{id}/rates', {
        params: { path: { id: zone.id } },
        body: { name: 'Standard', price: 990, currency: 'USD' },
      })
    ).data!.data;
    const free = (
      await admin.POST('/v1/shipping/zones/{id}/rates', {
        params: { path: { id: zone.id } },
        body: { name: 'Free shipping', price: 0, currency: 'USD', min_order_subtotal: 5000 },
      })
    ).data!.data;
    const world = (await admin.POST('/v1/shipping/zones', { body: { name: 'Rest of world', is_rest_of_world: true } }))
      .data!.data;
    const international = (
      await admin.POST('/v1/shipping/zones/{id}/rates', {
        params: { path: { id: world.id } },
        body: { name: 'International', price: 2900, currency: 'USD' },
      })
    ).data!.data;

    let subtotal = 6000;
    const lookup = async (country = 'US') => {
      const started = Date.now();
      const { data, response } = await storefront.POST('/v1/shipping/rates', {
        body: { country, subtotal: subtotal++, currency: 'USD' },
      });
      expect(response.status).toBe(200);
      return { rates: data!.data, ms: Date.now() - started };
    };
    expect((await lookup('US')).rates.map((rate) => rate.id)).toEqual([free.id, flat.id]);
    expect((await lookup('FR')).rates.map((rate) => rate.id)).toEqual([international.id]);
    const second = await admin.POST('/v1/shipping/zones', { body: { name: 'Elsewhere', is_rest_of_world: true } });
    expect(second.response.status).toBe(409);
    expect(second.error!.error.code).toBe('conflict');

    // A carrier answering 12 rates: the flat rates and 10 carrier rates, by price.
    receiver.behave('twelve', { kind: 'rates', rates: carrierRates(12) });
    await admin.PATCH('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id } },
      body: { carrier_callback_url: receiver.url('twelve') },
    });
    const merged = (await lookup('US')).rates;
    expect(merged.map((rate) => [rate.source, rate.price])).toEqual([
      ['flat', 0],
      ['flat', 990],
      ...[2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900, 3000].map((price) => ['carrier', price]),
    ]);
    const [seen] = receiver.seenBy('twelve');
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'commerce-api-carrier-callback/1',
    });
    expect(JSON.parse(seen.body)).toEqual({
      destination: { country: 'US', state: null, postal_code: null },
      items: [],
      subtotal: subtotal - 1,
      currency: 'USD',
    });

    // The carrier sleeps 6 s: flat rates after about 5 s; after three such failures, at once.
    receiver.behave('sleepy', { kind: 'sleep', ms: 6_000, then: { kind: 'rates', rates: carrierRates(3) } });
    await admin.PATCH('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id } },
      body: { carrier_callback_url: receiver.url('sleepy') },
    });
    const slow = await Promise.all([1, 2, 3].map(() => lookup('US')));
    for (const { rates, ms } of slow) {
      expect(rates.map((rate) => rate.id)).toEqual([free.id, flat.id]);
      expect(ms).toBeGreaterThanOrEqual(4_900);
      expect(ms).toBeLessThan(6_500);
    }
    const fast = await lookup('US');
    expect(fast.rates.map((rate) => rate.id)).toEqual([free.id, flat.id]);
    expect(fast.ms).toBeLessThan(1_000);
    expect(receiver.seenBy('sleepy')).toHaveLength(3);

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
