import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { registerCustomer, signedIn, storefront, type AuthSession } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// Two customers of one store; Ana's orders are shipped, Ben asks about Ana's.
const store = useStore({ project: { domain: 'shop.example.com', domain_verified: true, currency: 'EUR' } });
const { app, api } = store;

let ana: AuthSession;
let ben: AuthSession;
const me = (session: AuthSession): CommerceClient =>
  signedIn(app, store.keys.publishable_test.token, session.access_token);
const setWindow = (days: number) =>
  app.platform.PATCH('/platform/v1/projects/{id}', {
    params: { path: { id: store.project.id } },
    body: { return_window_days: days },
  });

/** An order of two units for the customer, paid and shipped in full. */
async function shippedOrderOf(customerId: string): Promise<OrderResource> {
  const location = store.project.default_location_id;
  const product = await createProduct(api, {
    title: 'Rain Jacket',
    variants: [{ title: 'M', sku: null, price: 8000 }],
  });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location, available: 5 } });
  const draft = await createDraftOrder(api, { currency: 'EUR', customer_id: customerId, customer_email: undefined });
  await addItems(api, draft.id, [{ variant_id: variantId, quantity: 2 }]);
  const order = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
  await api.POST('/v1/orders/{id}/pay', byId(order.id));
  await api.POST('/v1/orders/{id}/fulfillments', {
    ...byId(order.id),
    body: { location_id: location, line_items: [{ line_item_id: order.line_items[0].id, quantity: 2 }] },
  });
  return order;
}

beforeAll(async () => {
  const shop = storefront(app, store.keys.publishable_test.token);
  ana = await registerCustomer(shop, { email: 'ana@example.com' });
  ben = await registerCustomer(shop, { email: 'ben@example.com' });
});

describe('createCurrentCustomerOrderReturn', () => {
  test("the signed-in customer requests a return of their order; it shows on their order without the merchant's fields", async () => {
    const order = await shippedOrderOf(ana.customer.id);
    const lineId = order.line_items[0].id;
    const { data, response } = await me(ana).POST('/v1/me/orders/{id}/returns', {
      ...byId(order.id),
      body: {
        line_items: [{ line_item_id: lineId, quantity: 1 }],
        reason: 'size_too_large',
        note: 'One size down, please.',
      },
    });
    expect(response.status).toBe(201);
    expect(data!.data).toEqual({
      id: expect.stringMatching(/^ret_[0-9a-z]{26}$/),
      order_id: order.id,
      status: 'requested',
      reason: 'size_too_large',
      note: 'One size down, please.',
      line_items: [{ line_item_id: lineId, line_item_index: 0, quantity: 1 }],
      message: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const merchantView = (await api.GET('/v1/returns/{id}', byId(data!.data.id))).data!.data;
    expect(merchantView).toMatchObject({ requested_by: 'customer', status: 'requested' });
    const mine = (await me(ana).GET('/v1/me/orders/{id}', byId(order.id))).data!.data;
    expect(mine.line_items[0].id).toBe(lineId);
    expect(mine.fulfillments[0].line_items).toEqual([{ line_item_id: lineId, line_item_index: 0, quantity: 2 }]);
    expect(mine.returns).toEqual([data!.data]);
  });

  test("another customer's order answers 404 and records nothing", async () => {
    const order = await shippedOrderOf(ana.customer.id);
    const { response, error } = await me(ben).POST('/v1/me/orders/{id}/returns', {
      ...byId(order.id),
      body: { line_items: [{ line_item_id: order.line_items[0].id, quantity: 1 }], reason: 'unwanted' },
    });
    expect(response.status).toBe(404);
    expect(error!.error).toEqual({ code: 'not_found', message: 'Order not found.' });
    expect(await app.deps.db.return.count({ where: { orderId: order.id } })).toBe(0);
  });

  test('only within the return window after the last shipment: window 0 turns customer returns off; the merchant still can', async () => {
    const order = await shippedOrderOf(ana.customer.id);
    const body = { line_items: [{ line_item_id: order.line_items[0].id, quantity: 1 }], reason: 'unwanted' as const };
    // The shipment 31 days ago: outside the default 30-day window.
    const shippedAt = new Date(Date.now() - 31 * 86_400_000);
    await app.deps.db.fulfillment.updateMany({ where: { orderId: order.id }, data: { createdAt: shippedAt } });
    const late = await me(ana).POST('/v1/me/orders/{id}/returns', { ...byId(order.id), body });
    expect(late.response.status).toBe(400);
    const until = new Date(shippedAt.getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(late.error!.error).toEqual({
      code: 'invalid_request',
      message: `Returns of this order could be requested until ${until} (30 days after its last shipment).`,
    });
    expect((await setWindow(45)).response.status).toBe(200);
    expect((await me(ana).POST('/v1/me/orders/{id}/returns', { ...byId(order.id), body })).response.status).toBe(201);
    await setWindow(0);
    const off = await me(ana).POST('/v1/me/orders/{id}/returns', { ...byId(order.id), body });
    expect(off.error!.error.message).toBe('This store does not take return requests online; please contact it.');
    expect((await api.POST('/v1/orders/{id}/returns', { ...byId(order.id), body })).response.status).toBe(201);
    await setWindow(30);
  });
});
