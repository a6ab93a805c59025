import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createCustomer, type CustomerResource } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const { app, api } = store;

async function placeOrder(
  client: CommerceClient,
  customer: CustomerResource | null,
  unitPrice = 1000,
): Promise<OrderResource> {
  const draft = await createDraftOrder(client, customer ? { customer_id: customer.id, customer_email: undefined } : {});
  await addItems(client, draft.id, [{ title: 'Consulting', unit_price: unitPrice, quantity: 1 }]);
  const { data, response } = await client.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
  expect(response.status).toBe(201);
  return data!.data;
}

describe('payOrder', () => {
  test("pending -> paid with paid_at; the customer's total_spent grows by the total; order.paid and order.updated are recorded", async () => {
    const customer = await createCustomer(api);
    const order = await placeOrder(api, customer, 4990);
    const { data, response } = await api.POST('/v1/orders/{id}/pay', byId(order.id));
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ id: order.id, financial_status: 'paid', status: 'open' });
    expect(Date.parse(data!.data.paid_at!)).toBeGreaterThanOrEqual(Date.parse(order.created_at));
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data).toMatchObject({
      order_count: 1,
      total_spent: 4990,
    });

    const events = (
      await api.GET('/v1/events', {
        params: { query: { resource_type: 'order', resource_id: order.id, order: 'asc' } },
      })
    ).data!.data;
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid', 'order.updated']);
    expect(events[2].metadata.changes).toEqual({
      financial_status: { from: 'pending', to: 'paid' },
      paid_at: { from: null, to: data!.data.paid_at },
    });
  });

  test('paying twice is 400 and total_spent counts the order once', async () => {
    const customer = await createCustomer(api);
    const order = await placeOrder(api, customer, 700);
    await api.POST('/v1/orders/{id}/pay', byId(order.id));
    const again = await api.POST('/v1/orders/{id}/pay', byId(order.id));
    expect(again.response.status).toBe(400);
    expect(again.error).toEqual({ error: { code: 'invalid_request', message: 'This order is already paid.' } });
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.total_spent).toBe(700);
  });

  test('concurrent payments of one order: one 200, the rest 400; total_spent added once', async () => {
    const customer = await createCustomer(api);
    const order = await placeOrder(api, customer, 1234);
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.POST('/v1/orders/{id}/pay', byId(order.id))));
    expect(answers.map((a) => a.response.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.total_spent).toBe(1234);
  });

  test('a cancelled order cannot be marked paid: 409 conflict, and neither the order nor total_spent changes', async () => {
    const customer = await createCustomer(api);
    const order = await placeOrder(api, customer, 2500);
    const cancelled = await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'customer' } });
    expect(cancelled.response.status).toBe(200);
    const paid = await api.POST('/v1/orders/{id}/pay', byId(order.id));
    expect(paid.response.status).toBe(409);
    expect(paid.error).toEqual({
      error: { code: 'conflict', message: 'This order is cancelled and cannot be marked paid.' },
    });
    expect((await api.GET('/v1/orders/{id}', byId(order.id))).data!.data).toMatchObject({
      status: 'cancelled',
      financial_status: 'pending',
      paid_at: null,
    });
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.total_spent).toBe(0);
  });

  test('an order without a customer can be paid; an unknown order is 404', async () => {
    const order = await placeOrder(api, null);
    expect((await api.POST('/v1/orders/{id}/pay', byId(order.id))).response.status).toBe(200);
    expect((await api.POST('/v1/orders/{id}/pay', byId('ord_nope'))).error).toEqual({
      error: { code: 'not_found', message: 'Order not found.' },
    });
  });

  test('min_spent finds the customer once their order is paid', async () => {
    const customer = await createCustomer(api);
    const order = await placeOrder(api, customer, 99_000);
    const query = { email: customer.email, min_spent: 99_000 };
    expect((await api.GET('/v1/customers', { params: { query } })).data!.data).toEqual([]);
    await api.POST('/v1/orders/{id}/pay', byId(order.id));
    expect((await api.GET('/v1/customers', { params: { query } })).data!.data.map((c) => c.id)).toEqual([customer.id]);
  });
});

describe('getOrder', () => {
  test("fields narrows the answer; another project's order is 404", async () => {
    const order = await placeOrder(api, null);
    const narrow = await api.GET('/v1/orders/{id}', {
      params: { path: { id: order.id }, query: { fields: ['order_number', 'total'] } },
    });
    expect(narrow.data!.data).toEqual({ id: order.id, order_number: order.order_number, total: order.total });
    const other = await createProject(app);
    const { response } = await app.client(other.keys.secret_test.token).GET('/v1/orders/{id}', byId(order.id));
    expect(response.status).toBe(404);
  });

  test('a publishable key is 403', async () => {
    const order = await placeOrder(api, null);
    expect(
      (await app.client(store.keys.publishable_test.token).GET('/v1/orders/{id}', byId(order.id))).response.status,
    ).toBe(403);
  });
});

describe('listOrders', () => {
  let client: CommerceClient;
  let alice: CustomerResource;
  const orders: OrderResource[] = [];
  beforeAll(async () => {
    const own = await createProject(app);
    client = app.client(own.keys.secret_test.token);
    alice = await createCustomer(client);
    const bob = await createCustomer(client);
    for (const customer of [alice, bob, alice, null]) orders.push(await placeOrder(client, customer));
    await client.POST('/v1/orders/{id}/pay', byId(orders[2].id));
  });

  test('newest first by default, numbered from 1001 in creation order; cursor pages through', async () => {
    const first = await client.GET('/v1/orders', { params: { query: { limit: 3 } } });
    expect(first.data!.data.map((o) => o.order_number)).toEqual([1004, 1003, 1002]);
    expect(first.data!.pagination).toMatchObject({ has_more: true, total: 4 });
    const rest = await client.GET('/v1/orders', {
      params: { query: { limit: 3, cursor: first.data!.pagination.cursor! } },
    });
    expect(rest.data!.data.map((o) => o.order_number)).toEqual([1001]);
    expect(rest.data!.pagination).toMatchObject({ has_more: false, cursor: null });
  });

  test('filters customer_id, financial_status, status and created_after; sort updated_at', async () => {
    const mine = await client.GET('/v1/orders', { params: { query: { customer_id: alice.id, order: 'asc' } } });
    expect(mine.data!.data.map((o) => o.id)).toEqual([orders[0].id, orders[2].id]);
    const paid = await client.GET('/v1/orders', { params: { query: { financial_status: 'paid' } } });
    expect(paid.data!.data.map((o) => o.id)).toEqual([orders[2].id]);
    const open = await client.GET('/v1/orders', { params: { query: { status: 'open' } } });
    expect(open.data!.pagination.total).toBe(4);
    expect((await client.GET('/v1/orders', { params: { query: { status: 'cancelled' } } })).data!.data).toEqual([]);
    const later = await client.GET('/v1/orders', { params: { query: { created_after: orders[1].created_at } } });
    expect(later.data!.data.map((o) => o.id).sort()).toEqual([orders[2].id, orders[3].id].sort());
    const updated = await client.GET('/v1/orders', { params: { query: { sort: 'updated_at', limit: 1 } } });
    expect(updated.data!.data[0].id).toBe(orders[2].id);
  });

  test('fields applies to each order; invalid filters answer 400 naming them', async () => {
    const narrow = await client.GET('/v1/orders', { params: { query: { fields: ['email'], limit: 1 } } });
    expect(Object.keys(narrow.data!.data[0]).sort()).toEqual(['email', 'id']);
    for (const [field, query] of [
      ['financial_status', { financial_status: 'chargeback' }],
      ['created_after', { created_after: 'yesterday' }],
      ['sort', { sort: 'total' }],
      ['limit', { limit: 0 }],
    ] as const) {
      const { error } = await client.GET('/v1/orders', { params: { query: query as never } });
      expect(error!.error).toMatchObject({ code: 'invalid_request', field });
    }
  });
});
