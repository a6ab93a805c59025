import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

let app: TestApp;
let store: CreatedProject;
let api: CommerceClient;
let defaultLocation: string;
beforeAll(async () => {
  app = await startTestApp();
  store = await createProject(app, { currency: 'EUR' });
  api = app.client(store.keys.secret_test.token);
  defaultLocation = store.project.default_location_id;
});
afterAll(() => app.close());

const byId = (id: string) => ({ params: { path: { id } } });
const fulfilmentPath = (id: string, fulfillment_id: string) => ({ params: { path: { id, fulfillment_id } } });
const setStock = (variant_id: string, location_id: string, available: number) =>
  api.PUT('/v1/inventory-levels', { body: { variant_id, location_id, available } });
const levels = async (variantId: string) =>
  Object.fromEntries(
    (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.map((l) => [
      l.location_id,
      l.available,
    ]),
  );
const fulfil = (orderId: string, lines: Array<[number, number]>, location_id = defaultLocation) =>
  api.POST('/v1/orders/{id}/fulfillments', {
    ...byId(orderId),
    body: { location_id, line_items: lines.map(([line_item_index, quantity]) => ({ line_item_index, quantity })) },
  });
const readOrder = async (id: string) => (await api.GET('/v1/orders/{id}', byId(id))).data!.data;
const eventTypes = async (resource_type: string, resource_id: string) =>
  (await api.GET('/v1/events', { params: { query: { resource_type, resource_id, order: 'asc' } } })).data!.data.map(
    (e) => e.type,
  );

async function stockedProduct(title: string, units: number): Promise<ProductResource> {
  const product = await createProduct(api, { title, variants: [{ title: 'EU 42', sku: null, price: 9900 }] });
  await setStock(product.variants[0].id, defaultLocation, units);
  return product;
}

/** An order of the given variants (one line each), completed from a draft. */
async function placeOrder(
  lines: Array<{ variant_id: string; quantity: number }>,
  customer_id?: string,
): Promise<OrderResource> {
  const draft = await createDraftOrder(
    api,
    customer_id ? { currency: 'EUR', customer_id, customer_email: undefined } : { currency: 'EUR' },
  );
  await addItems(api, draft.id, lines);
  const { data, response } = await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
  expect(response.status).toBe(201);
  return data!.data;
}

/** Every (variant, location) level of the project minus the sum of its ledger adjustments: empty when the ledger sums to the levels. */
async function ledgerMismatches(): Promise<unknown[]> {
  const levelRows = await app.deps.db.inventoryLevel.findMany({ where: { projectId: store.project.id } });
  const sums = await app.deps.db.inventoryAdjustment.groupBy({
    by: ['variantId', 'locationId'],
    where: { projectId: store.project.id },
    _sum: { delta: true },
  });
  const byKey = new Map(sums.map((s) => [`${s.variantId} ${s.locationId}`, s._sum.delta ?? 0]));
  return levelRows
    .filter((level) => (byKey.get(`${level.variantId} ${level.locationId}`) ?? 0) !== level.available)
    .map((level) => [level.variantId, level.locationId, level.available]);
}

describe('createOrderFulfillment', () => {
  test('fulfilling some units makes the order partially_fulfilled, the rest makes it fulfilled; no stock moves; events recorded', async () => {
    const a = await stockedProduct('Trail Runner 2', 10);
    const b = await stockedProduct('Trail Sock', 10);
    const order = await placeOrder([
      { variant_id: a.variants[0].id, quantity: 2 },
      { variant_id: b.variants[0].id, quantity: 1 },
    ]);
    expect(order.fulfillment_status).toBe('unfulfilled');

    const first = await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: {
        location_id: defaultLocation,
        line_items: [{ line_item_index: 0, quantity: 1 }],
        tracking_company: 'DHL',
        tracking_number: '00340434161234567890',
        tracking_url: 'https://www.dhl.de/track?piececode=00340434161234567890',
      },
    });
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({
      order_id: order.id,
      location_id: defaultLocation,
      status: 'success',
      line_items: [{ line_item_index: 0, quantity: 1 }],
      tracking_company: 'DHL',
      notify_customer: false,
      cancelled_at: null,
    });
    expect(first.data!.data.id).toMatch(/^ful_[0-9a-z]{26}$/);
    expect((await readOrder(order.id)).fulfillment_status).toBe('partially_fulfilled');
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 8 });

    expect(
      (
        await fulfil(order.id, [
          [0, 1],
          [1, 1],
        ])
      ).response.status,
    ).toBe(201);
    expect((await readOrder(order.id)).fulfillment_status).toBe('fulfilled');
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 8 });
    expect(await levels(b.variants[0].id)).toEqual({ [defaultLocation]: 9 });

    expect(await eventTypes('order', order.id)).toEqual([
      'order.created',
      'order.partially_fulfilled',
      'order.updated',
      'order.fulfilled',
      'order.updated',
    ]);
    expect(await eventTypes('fulfillment', first.data!.data.id)).toEqual(['fulfillment.created']);
    const listed = await api.GET('/v1/orders/{id}/fulfillments', byId(order.id));
    const [lineA, lineB] = order.line_items.map((item) => item.id);
    expect(listed.data!.data.map((f) => f.line_items)).toEqual([
      [{ line_item_id: lineA, line_item_index: 0, quantity: 1 }],
      [
        { line_item_id: lineA, line_item_index: 0, quantity: 1 },
        { line_item_id: lineB, line_item_index: 1, quantity: 1 },
      ],
    ]);
    const read = await api.GET(
      '/v1/orders/{id}/fulfillments/{fulfillment_id}',
      fulfilmentPath(order.id, first.data!.data.id),
    );
    expect(read.data!.data).toEqual(first.data!.data);
  });

  test('more units than are left unfulfilled, an unknown line or a repeated line is 400 and writes nothing', async () => {
    const a = await stockedProduct('Trail Runner 3', 5);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 2 }]);
    await fulfil(order.id, [[0, 1]]);
    const tooMany = await fulfil(order.id, [[0, 2]]);
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'Line item 0 (Trail Runner 3 - EU 42) has 1 unfulfilled unit; 2 requested.',
        field: 'line_items[0].quantity',
      },
    });
    expect((await fulfil(order.id, [[3, 1]])).error?.error.field).toBe('line_items[0].line_item_index');
    const twice = await fulfil(order.id, [
      [0, 1],
      [0, 1],
    ]);
    expect(twice.error?.error).toMatchObject({ code: 'invalid_request', field: 'line_items[1].line_item_index' });
    expect((await api.GET('/v1/orders/{id}/fulfillments', byId(order.id))).data!.data).toHaveLength(1);
    expect((await readOrder(order.id)).fulfillment_status).toBe('partially_fulfilled');
  });

  test('an unknown order or location is 404; an inactive location is 400', async () => {
    const a = await stockedProduct('Trail Runner 4', 5);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 1 }]);
    expect((await fulfil('ord_nope', [[0, 1]])).error).toEqual({
      error: { code: 'not_found', message: 'Order not found.' },
    });
    expect((await fulfil(order.id, [[0, 1]], 'loc_nope')).error).toEqual({
      error: { code: 'not_found', message: 'Location not found.' },
    });
    const closed = (await api.POST('/v1/locations', { body: { name: 'Closed warehouse' } })).data!.data;
    await api.PATCH('/v1/locations/{id}', { ...byId(closed.id), body: { is_active: false } });
    expect((await fulfil(order.id, [[0, 1]], closed.id)).error?.error).toMatchObject({
      code: 'invalid_request',
      field: 'location_id',
    });
  });

  test('twenty concurrent fulfilments of one unit each of a five-unit line: exactly five succeed', async () => {
    const a = await stockedProduct('Trail Runner 5', 5);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 5 }]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => fulfil(order.id, [[0, 1]])));
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 400)).toHaveLength(15);
    expect((await readOrder(order.id)).fulfillment_status).toBe('fulfilled');
    const active = (await api.GET('/v1/orders/{id}/fulfillments', byId(order.id))).data!.data;
    expect(active.reduce((sum, f) => sum + f.line_items[0].quantity, 0)).toBe(5);
  });
});

describe('cancelOrderFulfillment', () => {
  test('cancelling a fulfilment makes its units unfulfilled again; twice is 400; records fulfillment.cancelled', async () => {
    const a = await stockedProduct('Trail Runner 6', 5);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 1 }]);
    const created = (await fulfil(order.id, [[0, 1]])).data!.data;
    expect((await readOrder(order.id)).fulfillment_status).toBe('fulfilled');
    const cancel = () =>
      api.POST('/v1/orders/{id}/fulfillments/{fulfillment_id}/cancel', fulfilmentPath(order.id, created.id));
    const cancelled = await cancel();
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data!.data).toMatchObject({ id: created.id, status: 'cancelled' });
    expect(cancelled.data!.data.cancelled_at).not.toBeNull();
    expect((await readOrder(order.id)).fulfillment_status).toBe('unfulfilled');
    expect((await cancel()).error).toEqual({
      error: { code: 'invalid_request', message: 'This fulfillment is already cancelled.' },
    });
    expect(await eventTypes('fulfillment', created.id)).toEqual(['fulfillment.created', 'fulfillment.cancelled']);
    expect((await fulfil(order.id, [[0, 1]])).response.status).toBe(201);
  });

  test('a fulfilment of another order is 404 Fulfillment not found.', async () => {
    const a = await stockedProduct('Trail Runner 7', 5);
    const one = await placeOrder([{ variant_id: a.variants[0].id, quantity: 1 }]);
    const other = await placeOrder([{ variant_id: a.variants[0].id, quantity: 1 }]);
    const created = (await fulfil(one.id, [[0, 1]])).data!.data;
    const read = await api.GET('/v1/orders/{id}/fulfillments/{fulfillment_id}', fulfilmentPath(other.id, created.id));
    expect(read.error).toEqual({ error: { code: 'not_found', message: 'Fulfillment not found.' } });
  });
});

describe('cancelOrder', () => {
  test('a partially fulfilled order cancelled with restock: the unshipped units return to the locations they left; the ledger sums to the levels', async () => {
    const a = await stockedProduct('Trail Runner 8', 1);
    const b = await stockedProduct('Trail Sock 8', 4);
    const annex = (await api.POST('/v1/locations', { body: { name: 'Annex' } })).data!.data.id;
    await setStock(a.variants[0].id, annex, 2);
    const customer = await createCustomer(api);
    // Trail Runner 8: 1 unit from the default location, 1 from the annex; Trail Sock 8: 2 from the default.
    const order = await placeOrder(
      [
        { variant_id: a.variants[0].id, quantity: 2 },
        { variant_id: b.variants[0].id, quantity: 2 },
      ],
      customer.id,
    );
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 0, [annex]: 1 });
    await fulfil(order.id, [[0, 1]], annex);

    const { data, response } = await api.POST('/v1/orders/{id}/cancel', {
      ...byId(order.id),
      body: { reason: 'customer' },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'customer',
      fulfillment_status: 'partially_fulfilled',
    });
    expect(data!.data.cancelled_at).not.toBeNull();
    // The shipped unit left from the annex; the unit taken from the default location comes back there.
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 1, [annex]: 1 });
    expect(await levels(b.variants[0].id)).toEqual({ [defaultLocation]: 4 });
    expect((await api.GET('/v1/variants/{id}', byId(a.variants[0].id))).data!.data.inventory_quantity).toBe(2);
    expect(await ledgerMismatches()).toEqual([]);
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.order_count).toBe(0);

    const events = (
      await api.GET('/v1/events', {
        params: { query: { resource_type: 'order', resource_id: order.id, order: 'asc' } },
      })
    ).data!.data;
    expect(events.slice(-2).map((e) => e.type)).toEqual(['order.cancelled', 'order.updated']);
    expect(events.at(-1)!.metadata.changes).toEqual({
      status: { from: 'open', to: 'cancelled' },
      cancel_reason: { from: null, to: 'customer' },
      cancelled_at: { from: null, to: data!.data.cancelled_at },
    });
  });

  test('restock false leaves the levels; cancelling twice is 400; a cancelled order cannot be fulfilled', async () => {
    const a = await stockedProduct('Trail Runner 9', 3);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 2 }]);
    const cancel = () =>
      api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'fraud', restock: false } });
    expect((await cancel()).response.status).toBe(200);
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 1 });
    expect((await cancel()).error).toEqual({
      error: { code: 'invalid_request', message: 'This order is already cancelled.' },
    });
    expect((await fulfil(order.id, [[0, 1]])).error).toEqual({
      error: { code: 'invalid_request', message: 'This order is cancelled and cannot be fulfilled.' },
    });
  });

  test('a fulfilled order cannot be cancelled (400) and nothing is restocked', async () => {
    const a = await stockedProduct('Trail Runner 10', 3);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 2 }]);
    await fulfil(order.id, [[0, 2]]);
    const answer = await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'other' } });
    expect(answer.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'This order is fulfilled: every unit has shipped, so it cannot be cancelled.',
      },
    });
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 1 });
    expect((await readOrder(order.id)).status).toBe('open');
  });

  test('concurrent cancels and fulfilments of one order: one cancel wins, units restocked once, the ledger sums to the levels', async () => {
    const a = await stockedProduct('Trail Runner 11', 6);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 4 }]);
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'inventory' } }),
      ),
      ...Array.from({ length: 3 }, () => fulfil(order.id, [[0, 1]])),
    ]);
    const cancels = answers.slice(0, 5).map((answer) => answer.response.status);
    expect(cancels.filter((status) => status === 200)).toHaveLength(1);
    const shipped = (await api.GET('/v1/orders/{id}/fulfillments', byId(order.id))).data!.data.length;
    expect(answers.slice(5).filter((answer) => answer.response.status === 201)).toHaveLength(shipped);
    // 6 on hand, 4 ordered; every unit that did not ship before the cancel came back.
    expect(await levels(a.variants[0].id)).toEqual({ [defaultLocation]: 6 - shipped });
    expect(await ledgerMismatches()).toEqual([]);
  });
});

describe('fulfilment and cancellation events', () => {
  test('are offered to the webhook subscriptions of their types, one delivery per event', async () => {
    const webhook = await createWebhook(api, 'https://orders-hooks.example.com/', {
      events: ['fulfillment.created', 'fulfillment.cancelled', 'order.partially_fulfilled', 'order.cancelled'],
    });
    const a = await stockedProduct('Trail Runner 12', 5);
    const order = await placeOrder([{ variant_id: a.variants[0].id, quantity: 3 }]);
    const created = (await fulfil(order.id, [[0, 1]])).data!.data;
    await api.POST('/v1/orders/{id}/fulfillments/{fulfillment_id}/cancel', fulfilmentPath(order.id, created.id));
    await fulfil(order.id, [[0, 2]]);
    await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'declined' } });
    const deliveries = await app.deps.db.webhookDelivery.findMany({
      where: { subscriptionId: webhook.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(deliveries.map((d) => d.eventType).sort()).toEqual(
      [
        'fulfillment.created',
        'order.partially_fulfilled',
        'fulfillment.cancelled',
        'fulfillment.created',
        'order.partially_fulfilled',
        'order.cancelled',
      ].sort(),
    );
  });
});
