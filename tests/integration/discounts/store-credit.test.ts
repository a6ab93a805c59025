import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// Discounts apply before store credit (openapi.yaml, the discounts tag, "Store credit"): the credit pays part or all
// of the discounted total, and a refund of a discounted line gives back what was paid, the credit part first.

const store = useStore({
  project: { currency: 'EUR', payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 },
});
const { app, api } = store;

type Order = components['schemas']['Order'];
type Body = components['schemas']['CheckoutComplete'];

let sock: string;
let shoe: string;
beforeAll(async () => {
  const product = await createProduct(api, {
    title: 'Trail kit',
    variants: [
      { title: 'Sock', price: 999 },
      { title: 'Shoe', price: 5000 },
    ],
  });
  [sock, shoe] = product.variants.map((variant) => variant.id);
  for (const variantId of [sock, shoe]) {
    await api.PUT('/v1/inventory-levels', {
      body: { variant_id: variantId, location_id: store.project.default_location_id, available: 1000 },
    });
  }
  await api.POST('/v1/discounts', { body: { code: 'TENOFF', title: '10 % off', type: 'percentage', value: 10 } });
});

/** A registered customer with `credit` of store credit: their id and their signed-in storefront client. */
async function customerWith(credit: number): Promise<{ id: string; shop: CommerceClient }> {
  const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
  await issueCredit(api, session.customer.id, credit);
  return { id: session.customer.id, shop: signedIn(app, store.keys.publishable_test.token, session.access_token) };
}

/** A checkout of 3 socks and a shoe (no tax, no shipping rates) with the code TENOFF applied. */
async function discounted(shop: CommerceClient): Promise<StartedCheckout> {
  const started = await startCheckout(shop, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [
      { variant_id: sock, quantity: 3 },
      { variant_id: shoe, quantity: 1 },
    ],
  });
  const applied = await shop.POST('/v1/checkouts/{id}/discount-codes', {
    ...withSecret(started.checkout.id, started.secret),
    body: { code: 'tenoff' },
  });
  expect(applied.response.status).toBe(200);
  // Socks 2997 less 300 (299.7 half-up), the shoe 5000 less 500: 7197 to pay.
  expect(applied.data!.data).toMatchObject({ subtotal: 7997, discount: 800, total: 7197 });
  return started;
}

const complete = (shop: CommerceClient, started: StartedCheckout, body: Body) =>
  shop.POST('/v1/checkouts/{id}/complete', { ...withSecret(started.checkout.id, started.secret), body });

describe('completeCheckout with a discount code and store_credit', () => {
  test('credit covering the discounted total: no provider call (amount 0 to it), order totals as the checkout showed', async () => {
    const jane = await customerWith(10000);
    const started = await discounted(jane.shop);
    // No payment.token: the test provider would answer 400 if it were asked for anything.
    const answer = await complete(jane.shop, started, { store_credit: {} });
    expect(answer.response.status).toBe(201);
    const order = answer.data!.data as Order;
    expect(order).toMatchObject({ financial_status: 'paid', subtotal: 7997, discount: 800, tax: 0, total: 7197 });
    expect(order.line_items.map((item) => item.discount)).toEqual([300, 500]);
    expect(order.payments.map((p) => [p.provider, p.status, p.amount])).toEqual([['store_credit', 'succeeded', 7197]]);
    expect(await balanceOf(api, jane.id)).toBe(10000 - 7197);
    const codes = await api.GET('/v1/discounts', { params: { query: { code: 'TENOFF' } } });
    expect(codes.data!.data[0].times_used).toBeGreaterThanOrEqual(1);
  });

  test('a refund of a discounted line paid partly with credit returns what the line paid, the credit part first', async () => {
    const jane = await customerWith(1000);
    const started = await discounted(jane.shop);
    const answer = await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } });
    const order = answer.data!.data as Order;
    expect(order.payments.map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 1000],
      ['test', 6197],
    ]);
    await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: { location_id: store.project.default_location_id, line_items: [{ line_item_index: 0, quantity: 3 }] },
    });
    const refund = (quantity: number) =>
      api.POST('/v1/orders/{id}/refunds', {
        ...byId(order.id),
        body: { line_items: [{ line_item_index: 0, quantity }] },
      });
    // The sock line paid 2697 for 3 units: 899 for one, all of it store credit (1000 paid so)...
    const first = await refund(1);
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({ amount: 899, store_credit_amount: 899 });
    // ...then 1798 for the other two: the 101 of credit left first, the rest as money.
    const rest = await refund(2);
    expect(rest.data!.data).toMatchObject({ amount: 1798, store_credit_amount: 101 });
    expect(await balanceOf(api, jane.id)).toBe(1000);
  });
});
