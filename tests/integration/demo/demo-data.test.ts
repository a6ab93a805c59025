import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient, createStorefrontClient, unwrap, type CommerceClient } from '@commerce-api/sdk';
import { ensureDemoProject, type DemoFile } from '../../../src/demo.js';
import { prepareDemo } from '../../setup/demo.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

// The demo project a first start creates exercises every storefront and back-office area: rates for the US
// and Germany (with a free-shipping threshold), customers with addresses and a group, EUR-priced products
// so a German order in EUR completes, and search with the publishable key.
let app: TestApp;
let demo: DemoFile;
let dataDir: string;
let api: CommerceClient;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-data-'));
  app = await startTestApp({ config: { dataDir }, template: await prepareDemo(dataDir) });
  demo = (await ensureDemoProject(app.deps))!;
  api = createCommerceClient({ baseUrl: app.baseUrl, apiKey: demo.keys.secret_test.token });
}, 120_000);
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const shop = () => createStorefrontClient({ baseUrl: app.baseUrl, publishableKey: demo.keys.publishable_test.token });

describe('the demo project', () => {
  test('rate lookup answers rates for the US and for Germany; free shipping from the threshold', async () => {
    const us = await unwrap(
      shop().POST('/v1/shipping/rates', { body: { country: 'US', state: 'NY', subtotal: 5900, currency: 'USD' } }),
    );
    expect(us.data.map((rate) => rate.name)).toEqual(['Standard', 'Express']);
    const usFree = await unwrap(
      shop().POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 7500, currency: 'USD' } }),
    );
    expect(usFree.data[0]).toMatchObject({ name: 'Free standard shipping', price: 0 });
    const de = await unwrap(
      shop().POST('/v1/shipping/rates', { body: { country: 'DE', subtotal: 4900, currency: 'EUR' } }),
    );
    expect(de.data.map((rate) => [rate.name, rate.price])).toEqual([
      ['Standard', 490],
      ['Express', 1290],
    ]);
    const deUsd = await unwrap(
      shop().POST('/v1/shipping/rates', { body: { country: 'DE', subtotal: 5900, currency: 'USD' } }),
    );
    expect(deUsd.data.length).toBeGreaterThan(0);
    const elsewhere = await unwrap(
      shop().POST('/v1/shipping/rates', { body: { country: 'JP', subtotal: 5900, currency: 'USD' } }),
    );
    expect(elsewhere.data.map((rate) => rate.name)).toEqual(['International']);
  });

  test('has customers with default addresses, found by search, and a manual group with members', async () => {
    const customers = await unwrap(api.GET('/v1/customers', { params: { query: { limit: 100 } } }));
    expect(customers.data.length).toBeGreaterThanOrEqual(5);
    const ada = await unwrap(api.GET('/v1/customers', { params: { query: { search: 'ada' } } }));
    expect(ada.data.map((customer) => customer.email)).toEqual(['ada.lovelace@example.com']);
    const withAddresses = await unwrap(
      api.GET('/v1/customers/{id}', { params: { path: { id: ada.data[0].id }, query: { expand: ['addresses'] } } }),
    );
    expect(withAddresses.data.addresses).toEqual([expect.objectContaining({ country: 'GB', is_default: true })]);
    const groups = await unwrap(api.GET('/v1/customer-groups'));
    expect(groups.data).toHaveLength(2);
    expect(groups.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'VIP', type: 'manual', member_count: 2, active_price_key: null }),
        expect.objectContaining({ name: 'Trade accounts', member_count: 1, active_price_key: 'wholesale' }),
      ]),
    );
  });

  test('a German order in EUR completes, with 19 % VAT', async () => {
    const products = await unwrap(api.GET('/v1/products', { params: { query: { tag: 'eu', limit: 5 } } }));
    // The demo's five EUR shirts are its only products tagged eu.
    expect(products.data.map((product) => [product.title, product.currency]).sort()).toEqual([
      ['Fjellgear Berlin Linen Shirt', 'EUR'],
      ['Fjellgear Cologne Polo Shirt', 'EUR'],
      ['Fjellgear Dresden Denim Shirt', 'EUR'],
      ['Fjellgear Hamburg Oxford Shirt', 'EUR'],
      ['Fjellgear Munich Flannel Shirt', 'EUR'],
    ]);
    const shirt = products.data[0];
    const max = (await unwrap(api.GET('/v1/customers', { params: { query: { search: 'mustermann' } } }))).data[0];
    const draft = await unwrap(
      api.POST('/v1/draft-orders', {
        body: {
          currency: 'EUR',
          customer_id: max.id,
          customer_email: max.email,
          shipping_address: { line1: 'Unter den Linden 77', city: 'Berlin', postal_code: '10117', country: 'DE' },
        },
      }),
    );
    await unwrap(
      api.POST('/v1/draft-orders/{id}/items', {
        params: { path: { id: draft.data.id } },
        body: { items: [{ variant_id: shirt.variants[0].id, quantity: 2 }] },
      }),
    );
    const { data: order } = await unwrap(
      api.POST('/v1/draft-orders/{id}/complete', { params: { path: { id: draft.data.id } } }),
    );
    expect(order).toMatchObject({ currency: 'EUR', status: 'open', draft_order_id: draft.data.id });
    expect(order.subtotal).toBe(2 * (shirt.variants[0].sale_price ?? shirt.variants[0].price));
    expect(order.tax).toBe(Math.round(order.subtotal * 0.19));
  });

  test('search with the publishable key in X-API-Key finds products, also priced in EUR', async () => {
    const found = await unwrap(shop().GET('/v1/search', { params: { query: { q: 'linen shirt', currency: 'EUR' } } }));
    expect(found.data.products.data.length).toBeGreaterThan(0);
    expect(found.data.products.data[0].currency).toBe('EUR');
  });
});
