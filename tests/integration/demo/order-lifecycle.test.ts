import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient, unwrap, type CommerceClient } from '@commerce-api/sdk';
import { ensureDemoProject, type DemoFile } from '../../../src/demo.js';
import { prepareDemo } from '../../setup/demo.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

// An order's life after creation, with the demo project's secret test key on the demo catalog (every variant
// holds at least 3 units at the default location and more at the Berlin warehouse; inventory policy deny).
let app: TestApp;
let demo: DemoFile;
let dataDir: string;
let api: CommerceClient;
let defaultLocation: string;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-orders-'));
  app = await startTestApp({ config: { dataDir }, template: await prepareDemo(dataDir) });
  demo = (await ensureDemoProject(app.deps))!;
  api = createCommerceClient({ baseUrl: app.baseUrl, apiKey: demo.keys.secret_test.token });
  const locations = await unwrap(api.GET('/v1/locations'));
  defaultLocation = locations.data.find((location) => location.is_default)!.id;
}, 120_000);
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const byId = (id: string) => ({ params: { path: { id } } });
const levelsOf = async (variantId: string) =>
  Object.fromEntries(
    (await unwrap(api.GET('/v1/variants/{id}/inventory-levels', byId(variantId)))).data.map((level) => [
      level.location_id,
      level,
    ]),
  );
const ada = async () => (await unwrap(api.GET('/v1/customers', { params: { query: { search: 'ada' } } }))).data[0];

/** Completes a USD draft for Ada with the given variant lines. */
async function orderFor(lines: Array<{ variant_id: string; quantity: number }>) {
  const customer = await ada();
  const draft = await unwrap(
    api.POST('/v1/draft-orders', {
      body: { currency: 'USD', customer_id: customer.id, customer_email: customer.email },
    }),
  );
  await unwrap(api.POST('/v1/draft-orders/{id}/items', { ...byId(draft.data.id), body: { items: lines } }));
  return (await unwrap(api.POST('/v1/draft-orders/{id}/complete', byId(draft.data.id)))).data;
}

/** The first variant of each of `count` footwear products (priced in USD). */
async function shoes(count: number, offset = 0): Promise<string[]> {
  const products = await unwrap(api.GET('/v1/products', { params: { query: { tag: 'footwear', limit: 20 } } }));
  return products.data.slice(offset, offset + count).map((product) => product.variants[0].id);
}

describe('an order after creation, on the demo data', () => {
  test('two variants, one unit partially fulfilled from the default location, then cancelled with restock: the unfulfilled unit is back at its location', async () => {
    const [first, second] = await shoes(2);
    const before = { first: await levelsOf(first), second: await levelsOf(second) };
    const order = await orderFor([
      { variant_id: first, quantity: 1 },
      { variant_id: second, quantity: 1 },
    ]);
    expect((await levelsOf(second))[defaultLocation].on_hand).toBe(before.second[defaultLocation].on_hand - 1);

    await unwrap(
      api.POST('/v1/orders/{id}/fulfillments', {
        ...byId(order.id),
        body: { location_id: defaultLocation, line_items: [{ line_item_index: 0, quantity: 1 }] },
      }),
    );
    expect((await unwrap(api.GET('/v1/orders/{id}', byId(order.id)))).data.fulfillment_status).toBe(
      'partially_fulfilled',
    );
    const cancelled = await unwrap(
      api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'customer', restock: true } }),
    );
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancel_reason: 'customer' });
    // The shipped unit stays shipped; the unfulfilled one is back where completion took it from.
    expect((await levelsOf(first))[defaultLocation].on_hand).toBe(before.first[defaultLocation].on_hand - 1);
    expect((await levelsOf(second))[defaultLocation].on_hand).toBe(before.second[defaultLocation].on_hand);
  });

  test("a paid order refunded in two parts ends refunded, with the customer's total_spent back where it was", async () => {
    const [variant] = await shoes(1, 2);
    const spentBefore = (await ada()).total_spent;
    const order = await orderFor([{ variant_id: variant, quantity: 1 }]);
    await unwrap(api.POST('/v1/orders/{id}/pay', byId(order.id)));
    expect((await ada()).total_spent).toBe(spentBefore + order.total);

    const half = Math.floor(order.total / 2);
    await unwrap(api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: half, reason: 'Late' } }));
    expect((await unwrap(api.GET('/v1/orders/{id}', byId(order.id)))).data.financial_status).toBe('partially_refunded');
    await unwrap(api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: order.total - half } }));
    expect((await unwrap(api.GET('/v1/orders/{id}', byId(order.id)))).data).toMatchObject({
      financial_status: 'refunded',
      total_refunded: order.total,
    });
    expect((await ada()).total_spent).toBe(spentBefore);
    expect((await unwrap(api.GET('/v1/orders/{id}/refunds', byId(order.id)))).data).toHaveLength(2);
  });

  test("a sent draft's units show as reserved and cannot be sold to another draft (deny)", async () => {
    const [variant] = await shoes(1, 3);
    const onHand = (await unwrap(api.GET('/v1/variants/{id}', byId(variant)))).data.inventory_quantity!;
    const customer = await ada();
    const held = await unwrap(
      api.POST('/v1/draft-orders', {
        body: { currency: 'USD', customer_id: customer.id, customer_email: customer.email },
      }),
    );
    await unwrap(
      api.POST('/v1/draft-orders/{id}/items', {
        ...byId(held.data.id),
        body: { items: [{ variant_id: variant, quantity: onHand }] },
      }),
    );
    await unwrap(api.POST('/v1/draft-orders/{id}/send', byId(held.data.id)));
    const levels = Object.values(await levelsOf(variant));
    expect(levels.reduce((sum, level) => sum + level.reserved, 0)).toBe(onHand);
    expect(levels.every((level) => level.available === 0)).toBe(true);

    const other = await unwrap(
      api.POST('/v1/draft-orders', { body: { currency: 'USD', customer_email: 'walk-in@example.com' } }),
    );
    await unwrap(
      api.POST('/v1/draft-orders/{id}/items', {
        ...byId(other.data.id),
        body: { items: [{ variant_id: variant, quantity: 1 }] },
      }),
    );
    const refused = await api.POST('/v1/draft-orders/{id}/complete', byId(other.data.id));
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ error: { code: 'conflict', field: variant } });

    // The customer's own draft still completes from the units it holds.
    expect((await api.POST('/v1/draft-orders/{id}/complete', byId(held.data.id))).response.status).toBe(201);
  });
});
