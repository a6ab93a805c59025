import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// closeReturn refunds through createOrderRefund's service (openapi.yaml, closeReturn): an order paid in part with
// store credit gets that part back as store credit first, and the return's refund, the ledger and the balance agree.

const store = useStore({
  project: { currency: 'EUR', payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 },
});
const { app, api } = store;

type Order = components['schemas']['Order'];
type ReturnClose = components['schemas']['ReturnClose'];

const location = () => store.project.default_location_id;
let variantId: string;
beforeAll(async () => {
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location(), available: 10 } });
});

const available = async () =>
  (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.find(
    (level) => level.location_id === location(),
  )!.available;
const entriesOf = (customerId: string) =>
  app.deps.db.storeCreditTransaction.findMany({
    where: { customerId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });

/** A registered customer with `credit` of store credit who bought 3 units (9900 each, no shipping, no tax), paying `credit` of it with store credit and the rest through the test provider; every unit shipped. */
async function shippedOrderPaidWithCredit(credit: number): Promise<{ customerId: string; order: Order }> {
  const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
  const shop: CommerceClient = signedIn(app, store.keys.publishable_test.token, session.access_token);
  await issueCredit(api, session.customer.id, credit);
  const started = await startCheckout(shop, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity: 3 }],
  });
  const completed = await shop.POST('/v1/checkouts/{id}/complete', {
    ...withSecret(started.checkout.id, started.secret),
    body: { store_credit: {}, payment: { token: 'tok_test_success' } },
  });
  expect(completed.response.status).toBe(201);
  const order = completed.data!.data as Order;
  expect(order.payments.map((payment) => [payment.provider, payment.amount])).toEqual([
    ['store_credit', credit],
    ['test', 29700 - credit],
  ]);
  const shipped = await api.POST('/v1/orders/{id}/fulfillments', {
    ...byId(order.id),
    body: { location_id: location(), line_items: [{ line_item_id: order.line_items[0].id, quantity: 3 }] },
  });
  expect(shipped.response.status).toBe(201);
  return { customerId: session.customer.id, order };
}

/** Requests, approves, receives at the default location and closes a return of `quantity` units of the order's line. */
async function returnAndClose(order: Order, quantity: number, close: ReturnClose) {
  const requested = await api.POST('/v1/orders/{id}/returns', {
    ...byId(order.id),
    body: { line_items: [{ line_item_id: order.line_items[0].id, quantity }], reason: 'size_too_small' },
  });
  expect(requested.response.status).toBe(201);
  const id = requested.data!.data.id;
  expect((await api.POST('/v1/returns/{id}/approve', { ...byId(id), body: {} })).response.status).toBe(200);
  expect(
    (await api.POST('/v1/returns/{id}/receive', { ...byId(id), body: { location_id: location() } })).response.status,
  ).toBe(200);
  const closed = await api.POST('/v1/returns/{id}/close', { ...byId(id), body: close });
  expect(closed.response.status).toBe(200);
  return closed.data!.data;
}

describe('closeReturn of an order paid in part with store credit', () => {
  test('a return of 2 of 3 fulfilled units, received and closed with a refund, restocks 2 and refunds their paid amount; the store credit part comes back first and the balance, the ledger and the refund agree', async () => {
    const { customerId, order } = await shippedOrderPaidWithCredit(5000);
    expect(await balanceOf(api, customerId)).toBe(0);
    expect(await available()).toBe(7);

    const closed = await returnAndClose(order, 2, {});
    expect(await available()).toBe(9);
    const refunds = (await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(refunds).toHaveLength(1);
    // What the 2 units paid: 2 x 9900; the 5000 paid with store credit goes back first, the rest is money.
    expect(refunds[0]).toMatchObject({
      id: closed.refund_id,
      amount: 19800,
      store_credit_amount: 5000,
      line_items: [],
    });
    expect(closed).toMatchObject({ status: 'closed', refund_id: refunds[0].id });
    expect(await balanceOf(api, customerId)).toBe(5000);
    const entries = await entriesOf(customerId);
    const returned = entries.filter((entry) => entry.type === 'refund');
    expect(returned.map((entry) => [Number(entry.amount), entry.orderId, entry.refundId, entry.expiresAt])).toEqual([
      [5000, order.id, refunds[0].id, null],
    ]);
    expect(entries.reduce((sum, entry) => sum + Number(entry.amount), 0)).toBe(5000);
    expect((await api.GET('/v1/orders/{id}', byId(order.id))).data!.data).toMatchObject({
      total_refunded: 19800,
      financial_status: 'partially_refunded',
      returns: [{ id: closed.id, status: 'closed' }],
    });
    const issued = await api.GET('/v1/events', { params: { query: { resource_id: returned[0].id } } });
    expect(issued.data!.data.map((event) => event.type)).toEqual(['store_credit.issued']);
  });

  test('store_credit_refund_method original_payment refunds the store credit part as money: the balance stays 0', async () => {
    const { customerId, order } = await shippedOrderPaidWithCredit(5000);
    const closed = await returnAndClose(order, 1, { store_credit_refund_method: 'original_payment' });
    const refunds = (await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(refunds).toEqual([expect.objectContaining({ id: closed.refund_id, amount: 9900, store_credit_amount: 0 })]);
    expect(await balanceOf(api, customerId)).toBe(0);
    expect((await entriesOf(customerId)).filter((entry) => entry.type === 'refund')).toEqual([]);
  });
});
