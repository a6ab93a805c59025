import { describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer, type CustomerResource } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { currency: 'EUR' } });
const { app, api } = store;

const refund = (
  id: string,
  body: {
    amount: number;
    reason?: string | null;
    line_items?: Array<{ line_item_index: number; quantity: number; location_id?: string }>;
  },
) => api.POST('/v1/orders/{id}/refunds', { ...byId(id), body });
const readOrder = async (id: string) => (await api.GET('/v1/orders/{id}', byId(id))).data!.data;
const totalSpent = async (customer: CustomerResource) =>
  (await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.total_spent;
const levels = async (variantId: string) =>
  Object.fromEntries(
    (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.map((l) => [
      l.location_id,
      l.available,
    ]),
  );

/** A paid order of a custom item costing `amount` for the customer. */
async function paidOrder(customer: CustomerResource | null, amount: number): Promise<OrderResource> {
  const draft = await createDraftOrder(
    api,
    customer ? { currency: 'EUR', customer_id: customer.id, customer_email: undefined } : { currency: 'EUR' },
  );
  await addItems(api, draft.id, [{ title: 'Consulting', unit_price: amount, quantity: 1 }]);
  const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
  expect((await api.POST('/v1/orders/{id}/pay', byId(order.id))).response.status).toBe(200);
  return order;
}

/** A paid order of `quantity` units of a new stocked variant, shipped in full from the default location. */
async function shippedOrder(quantity: number) {
  const location = store.project.default_location_id;
  const product = await createProduct(api, {
    title: 'Trail Runner',
    variants: [{ title: 'EU 42', sku: null, price: 5000 }],
  });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location, available: 10 } });
  const draft = await createDraftOrder(api, { currency: 'EUR' });
  await addItems(api, draft.id, [{ variant_id: variantId, quantity }]);
  const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
  await api.POST('/v1/orders/{id}/pay', byId(order.id));
  const fulfilment = await api.POST('/v1/orders/{id}/fulfillments', {
    ...byId(order.id),
    body: { location_id: location, line_items: [{ line_item_index: 0, quantity }] },
  });
  return { order, variantId, location, fulfilment: fulfilment.data!.data };
}

describe('createOrderRefund', () => {
  test('two partial refunds: partially_refunded then refunded; total_spent back where it was; refunds listed; events recorded', async () => {
    const customer = await createCustomer(api);
    const order = await paidOrder(customer, 10000);
    expect(await totalSpent(customer)).toBe(10000);

    const first = await refund(order.id, { amount: 4000, reason: 'Late delivery' });
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({
      order_id: order.id,
      amount: 4000,
      currency: 'EUR',
      reason: 'Late delivery',
      line_items: [],
      status: 'succeeded',
      provider: 'manual',
      provider_reference: null,
      failure_reason: null,
    });
    expect(first.data!.data.id).toMatch(/^rfnd_[0-9a-z]{26}$/);
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'partially_refunded', total_refunded: 4000 });
    expect(await totalSpent(customer)).toBe(6000);

    expect((await refund(order.id, { amount: 6000 })).response.status).toBe(201);
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'refunded', total_refunded: 10000 });
    expect(await totalSpent(customer)).toBe(0);

    const listed = (await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(listed.map((r) => r.amount)).toEqual([4000, 6000]);
    expect(listed[0]).toEqual(first.data!.data);

    const events = (
      await api.GET('/v1/events', {
        params: { query: { resource_type: 'order', resource_id: order.id, order: 'asc' } },
      })
    ).data!.data;
    expect(events.map((e) => e.type)).toEqual([
      'order.created',
      'order.paid',
      'order.updated',
      'order.refunded',
      'order.updated',
      'order.refunded',
      'order.updated',
    ]);
    expect(events.at(-1)!.metadata.changes).toEqual({
      financial_status: { from: 'partially_refunded', to: 'refunded' },
      total_refunded: { from: 4000, to: 10000 },
    });
    const refundEvents = await api.GET('/v1/events', {
      params: { query: { resource_type: 'refund', resource_id: first.data!.data.id } },
    });
    // manual: the merchant returned the money elsewhere, so the refund is recorded as succeeded at once.
    expect(refundEvents.data!.data.map((e) => e.type)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('more than is left to refund is 400 on amount; a pending order is 400; an unknown order is 404; nothing is written', async () => {
    const customer = await createCustomer(api);
    const order = await paidOrder(customer, 5000);
    await refund(order.id, { amount: 3000 });
    const tooMuch = await refund(order.id, { amount: 2001 });
    expect(tooMuch.response.status).toBe(400);
    expect(tooMuch.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'At most 2000 (minor units of EUR) can be refunded: 3000 of 5000 already was.',
        field: 'amount',
      },
    });
    expect(await totalSpent(customer)).toBe(2000);

    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ title: 'Consulting', unit_price: 100, quantity: 1 }]);
    const pending = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
    expect((await refund(pending.id, { amount: 1 })).error).toEqual({
      error: { code: 'invalid_request', message: 'This order is not paid, so there is nothing to refund.' },
    });
    expect((await refund('ord_nope', { amount: 1 })).error).toEqual({
      error: { code: 'not_found', message: 'Order not found.' },
    });
    expect((await refund(order.id, { amount: 0 })).error?.error.field).toBe('amount');
    expect((await refund(order.id, { amount: -1 })).response.status).toBe(400);
    expect((await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data).toHaveLength(1);
  });

  test('twenty parallel refunds never return more than was paid', async () => {
    const customer = await createCustomer(api);
    const order = await paidOrder(customer, 10000);
    // 20 x 700 = 14000 asked for; at most 14 fit into 10000 (9800), then 200 is left, less than 700.
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(order.id, { amount: 700 })));
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(14);
    expect(statuses.filter((status) => status === 400)).toHaveLength(6);
    const after = await readOrder(order.id);
    expect(after).toMatchObject({ financial_status: 'partially_refunded', total_refunded: 9800 });
    const recorded = await app.deps.db.refund.aggregate({ where: { orderId: order.id }, _sum: { amount: true } });
    expect(Number(recorded._sum.amount)).toBe(9800);
    expect(await totalSpent(customer)).toBe(200);
  });

  test('restock lines put shipped units that came back into stock through the ledger, only as many as shipped', async () => {
    const { order, variantId, location, fulfilment } = await shippedOrder(2);
    expect(await levels(variantId)).toEqual({ [location]: 8 });
    const back = await refund(order.id, { amount: 5000, line_items: [{ line_item_index: 0, quantity: 1 }] });
    expect(back.response.status).toBe(201);
    expect(back.data!.data.line_items).toEqual([
      { line_item_id: order.line_items[0].id, line_item_index: 0, quantity: 1, location_id: location },
    ]);
    expect(await levels(variantId)).toEqual({ [location]: 9 });
    const ledger = await app.deps.db.inventoryAdjustment.findMany({
      where: { variantId },
      orderBy: { createdAt: 'asc' },
    });
    expect(ledger.map((a) => [a.reason, a.delta])).toEqual([
      ['set', 10],
      ['order', -2],
      ['restock', 1],
    ]);

    const tooMany = await refund(order.id, { amount: 0, line_items: [{ line_item_index: 0, quantity: 2 }] });
    expect(tooMany.error?.error).toMatchObject({ code: 'invalid_request', field: 'line_items[0].quantity' });
    expect(await levels(variantId)).toEqual({ [location]: 9 });
    // A unit came back, so the fulfilment that shipped it can no longer be undone.
    const undo = await api.POST('/v1/orders/{id}/fulfillments/{fulfillment_id}/cancel', {
      params: { path: { id: order.id, fulfillment_id: fulfilment.id } },
    });
    expect(undo.response.status).toBe(400);
  });

  test('a custom item cannot be restocked; an unshipped unit cannot come back through a refund', async () => {
    const order = await paidOrder(null, 3000);
    const custom = await refund(order.id, { amount: 0, line_items: [{ line_item_index: 0, quantity: 1 }] });
    expect(custom.error?.error).toMatchObject({ code: 'invalid_request', field: 'line_items[0].line_item_index' });
    const { order: shipped } = await shippedOrder(1);
    await api.POST('/v1/orders/{id}/fulfillments/{fulfillment_id}/cancel', {
      params: {
        path: {
          id: shipped.id,
          fulfillment_id: (await api.GET('/v1/orders/{id}/fulfillments', byId(shipped.id))).data!.data[0].id,
        },
      },
    });
    const unshipped = await refund(shipped.id, { amount: 0, line_items: [{ line_item_index: 0, quantity: 1 }] });
    expect(unshipped.error?.error.message).toBe(
      'Line item 0 has 0 shipped units that can come back; 1 requested. Units not shipped return to stock when the order is cancelled.',
    );
  });

  test('refund.created and order.refunded are offered to webhook subscriptions', async () => {
    const webhook = await createWebhook(api, 'https://refund-hooks.example.com/', {
      events: ['refund.created', 'order.refunded'],
    });
    const order = await paidOrder(null, 2500);
    await refund(order.id, { amount: 2500 });
    const deliveries = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    expect(deliveries.map((d) => d.eventType).sort()).toEqual(['order.refunded', 'refund.created']);
  });
});

describe('listOrderRefunds', () => {
  test("an order without refunds lists none; another project's order is 404", async () => {
    const order = await paidOrder(null, 100);
    expect((await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data).toEqual([]);
    const other = await createProject(app);
    const foreign = await app.client(other.keys.secret_test.token).GET('/v1/orders/{id}/refunds', byId(order.id));
    expect(foreign.response.status).toBe(404);
  });
});

describe('cancelOrder with refund', () => {
  test('cancelling a paid order with refund refunds the rest: refunded, total_spent lowered, order_count lowered', async () => {
    const customer = await createCustomer(api);
    const order = await paidOrder(customer, 8000);
    await refund(order.id, { amount: 1000 });
    const { data, response } = await api.POST('/v1/orders/{id}/cancel', {
      ...byId(order.id),
      body: { reason: 'customer', refund: true },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ status: 'cancelled', financial_status: 'refunded', total_refunded: 8000 });
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data).toMatchObject({
      total_spent: 0,
      order_count: 0,
    });
    const refunds = (await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(refunds.map((r) => [r.amount, r.reason])).toEqual([
      [1000, null],
      [7000, 'Order cancelled (customer)'],
    ]);
  });

  test('cancelling a paid order without refund keeps the payment and total_spent', async () => {
    const customer = await createCustomer(api);
    const order = await paidOrder(customer, 3000);
    const { data } = await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'other' } });
    expect(data!.data).toMatchObject({ status: 'cancelled', financial_status: 'paid', total_refunded: 0 });
    expect(await totalSpent(customer)).toBe(3000);
    expect((await refund(order.id, { amount: 3000 })).response.status).toBe(201);
    expect(await totalSpent(customer)).toBe(0);
  });
});
