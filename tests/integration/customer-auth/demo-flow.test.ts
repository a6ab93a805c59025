import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureDemoProject, type DemoFile } from '../../../src/demo.js';
import { createCommerceClient, type CommerceClient } from '@commerce-api/sdk';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { prepareDemo } from '../../setup/demo.js';
import { useApp } from '../../setup/store.js';

// The storefront's whole customer-auth flow, and the wholesale prices it shows, on the demo project a first
// start creates (verified domain demo-store.example.com).
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-flow-'));
// The demo project as a first start creates it, built once per test run (tests/setup/demo.ts).
let template: string;
beforeAll(async () => {
  template = await prepareDemo(dataDir);
}, 120_000);
const app = useApp(() => ({ config: { dataDir }, template }));
let demo: DemoFile;
// The demo catalog takes a while to create (about 500 writes).
beforeAll(async () => {
  demo = (await ensureDemoProject(app.deps))!;
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('customer auth on the demo project', () => {
  test('register, login, /v1/me, refresh (the old token refused and ending the new one), forgot and reset (ending earlier sessions)', async () => {
    const key = demo.keys.publishable_live.token;
    const shop = storefront(app, key);
    const email = 'demo.shopper@example.com';
    const registered = await shop.POST('/v1/auth/register', {
      body: { email, password: 'Winter-Trail-2026', first_name: 'Demo', last_name: 'Shopper' },
    });
    expect(registered.response.status).toBe(201);

    const login = (await shop.POST('/v1/auth/login', { body: { email, password: 'Winter-Trail-2026' } })).data!.data;
    const me = await signedIn(app, key, login.access_token).GET('/v1/me');
    expect(me.data!.data).toMatchObject({ email, first_name: 'Demo', email_verified: false });

    const refreshed = (await shop.POST('/v1/auth/token', { body: { refresh_token: login.refresh_token } })).data!.data;
    expect((await shop.POST('/v1/auth/token', { body: { refresh_token: login.refresh_token } })).response.status).toBe(
      401,
    );
    expect(
      (await shop.POST('/v1/auth/token', { body: { refresh_token: refreshed.refresh_token } })).response.status,
    ).toBe(401);

    const second = (await shop.POST('/v1/auth/login', { body: { email, password: 'Winter-Trail-2026' } })).data!.data;
    expect((await shop.POST('/v1/auth/forgot-password', { body: { email } })).response.status).toBe(200);
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: demo.project_id }, query: { to: email } },
    });
    const [resetEmail] = outbox.data!.data;
    expect(resetEmail.data.reset_url).toMatch(/^https:\/\/demo-store\.example\.com\/account\/reset-password\?token=/);
    const reset = await shop.POST('/v1/auth/reset-password', {
      body: { token: resetEmail.data.token as string, password: 'Spring-Trail-2027' },
    });
    expect(reset.response.status).toBe(200);
    expect((await shop.POST('/v1/auth/token', { body: { refresh_token: second.refresh_token } })).response.status).toBe(
      401,
    );
    expect((await signedIn(app, key, second.access_token).GET('/v1/me')).response.status).toBe(401);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email, password: 'Spring-Trail-2027' } })).response.status,
    ).toBe(200);
  });

  test('six wrong passwords in a row: the fifth answers 401, the sixth 429 with Retry-After about 60', async () => {
    const shop = storefront(app, demo.keys.publishable_test.token);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let n = 1; n <= 6; n++) {
      const { response } = await shop.POST('/v1/auth/login', {
        body: { email: 'guessed@example.com', password: 'Wrong-Password-1' },
      });
      statuses.push(response.status);
      retryAfter = response.headers.get('Retry-After');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });

  test('OPTIONS /v1/auth/login with Origin and Access-Control-Request-Headers gets the CORS answer; OPTIONS /v1/customers does not', async () => {
    const headers = {
      Origin: 'https://demo-store.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-api-key, content-type',
    };
    const login = await fetch(`${app.baseUrl}/v1/auth/login`, { method: 'OPTIONS', headers });
    expect(login.status).toBe(204);
    expect(login.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const customers = await fetch(`${app.baseUrl}/v1/customers`, { method: 'OPTIONS', headers });
    expect(customers.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });
});

describe('the wholesale price list on the demo project', () => {
  let merchant: CommerceClient;
  let variantId: string;
  let productId: string;
  let basePrice: number;
  let tiers: Array<{ min_quantity: number; amount: number }>;
  beforeAll(async () => {
    merchant = createCommerceClient({ baseUrl: app.baseUrl, apiKey: demo.keys.secret_test.token });
    const lists = (await merchant.GET('/v1/price-lists', { params: { query: {} } })).data!.data;
    const wholesale = lists.find((list) => list.slug === 'wholesale')!;
    const prices = (
      await merchant.GET('/v1/price-lists/{id}/prices', { params: { path: { id: wholesale.id }, query: {} } })
    ).data!.data;
    // The variant with a quantity tier.
    variantId = prices.find((price) => price.min_quantity === 10)!.variant_id;
    tiers = prices.filter((price) => price.variant_id === variantId);
    const variant = (await merchant.GET('/v1/variants/{id}', { params: { path: { id: variantId } } })).data!.data;
    productId = variant.product_id;
    basePrice = variant.sale_price ?? variant.price;
  });
  const tier = (quantity: number) =>
    tiers.filter((price) => price.min_quantity <= quantity).sort((a, b) => b.min_quantity - a.min_quantity)[0].amount;

  /** A draft for the demo customer with this e-mail, with one line of the tiered variant; its unit price and list. */
  const lineFor = async (email: string, quantity: number) => {
    const customer = (await merchant.GET('/v1/customers', { params: { query: { email } } })).data!.data[0];
    const draft = (await merchant.POST('/v1/draft-orders', { body: { currency: 'USD', customer_id: customer.id } }))
      .data!.data;
    const added = await merchant.POST('/v1/draft-orders/{id}/items', {
      params: { path: { id: draft.id } },
      body: { items: [{ variant_id: variantId, quantity }] },
    });
    const [line] = added.data!.data;
    return { unit_price: line.unit_price, base_price: line.base_price, listed: line.price_list_id !== null };
  };

  test('a customer on the list by her own key gets the tier price on a line of 10 and the list price on a line of 1', async () => {
    expect(tier(10)).toBeLessThan(tier(1));
    expect(tier(1)).toBeLessThan(basePrice);
    expect(await lineFor('grace.hopper@example.com', 10)).toEqual({
      unit_price: tier(10),
      base_price: basePrice,
      listed: true,
    });
    expect(await lineFor('grace.hopper@example.com', 1)).toEqual({
      unit_price: tier(1),
      base_price: basePrice,
      listed: true,
    });
  });

  test('a customer only in a group with the key gets the same; a customer without a list the base price', async () => {
    expect((await lineFor('lin.chen@example.com', 10)).unit_price).toBe(tier(10));
    expect((await lineFor('lin.chen@example.com', 1)).unit_price).toBe(tier(1));
    expect(await lineFor('marie.curie@example.fr', 10)).toEqual({
      unit_price: basePrice,
      base_price: basePrice,
      listed: false,
    });
  });

  test("a signed-in shopper put on the list sees its price in the storefront's product read and search", async () => {
    const key = demo.keys.publishable_test.token;
    const session = await registerCustomer(storefront(app, key));
    await merchant.PATCH('/v1/customers/{id}', {
      params: { path: { id: session.customer.id } },
      body: { active_price_key: 'wholesale' },
    });
    const shopper = signedIn(app, key, session.access_token);
    const product = (await shopper.GET('/v1/products/{id}', { params: { path: { id: productId } } })).data!.data;
    const listed = product.variants.find((variant) => variant.id === variantId)!;
    expect(listed.customer_price).toBe(tier(1));
    expect(listed.price).toBeGreaterThan(tier(1));
    const found = await shopper.GET('/v1/search', { params: { query: { q: product.title } } });
    const hit = found.data!.data.products.data.find((candidate) => candidate.id === productId)!;
    expect(hit.customer_price).toBe(Math.min(...product.variants.map((variant) => variant.customer_price!)));
    expect(hit.customer_price).toBe(product.customer_price);
    const anonymous = (await storefront(app, key).GET('/v1/products/{id}', { params: { path: { id: productId } } }))
      .data!.data;
    expect(anonymous).not.toHaveProperty('customer_price');
  });
});
