import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import Stripe from 'stripe';
import { jobs } from '../../../src/jobs/registry.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { byId } from '../../setup/requests.js';
import { startStripeStandIn, STRIPE_PROJECT, type StripeStandIn } from '../../setup/stripe-stand-in.js';
import { useApp } from '../../setup/store.js';

// Store credit next to the stripe provider (completeCheckout's store_credit, createOrderRefund's store credit part),
// through the real `stripe` package against the local stand-in of Stripe's API (tests/setup/stripe-stand-in.ts).
let stand: StripeStandIn;
beforeAll(async () => {
  stand = await startStripeStandIn();
});
afterAll(async () => stand.close());
const app = useApp(() => ({ config: { stripeApiBase: stand.base } }));

const WEBHOOK_SECRET = STRIPE_PROJECT.stripe_webhook_secret;

interface Shop {
  project: CreatedProject;
  api: CommerceClient;
  variantId: string;
}

/** A Stripe project (with a store domain, so customers sign in) selling one variant of 9900 with `units` in stock. */
async function newShop(units = 5): Promise<Shop> {
  const project = await createProject(app, {
    ...STRIPE_PROJECT,
    domain: 'shop.example.com',
    domain_verified: true,
  });
  const api = app.client(project.keys.secret_test.token);
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: project.project.default_location_id, available: units },
  });
  return { project, api, variantId };
}

/** A signed-in customer of the shop holding `credit` of store credit: their id and storefront client. */
async function customer(shop: Shop, credit: number): Promise<{ id: string; client: CommerceClient }> {
  const publishable = shop.project.keys.publishable_test.token;
  const session = await registerCustomer(storefront(app, publishable));
  await issueCredit(shop.api, session.customer.id, credit);
  return { id: session.customer.id, client: signedIn(app, publishable, session.access_token) };
}

const start = (client: CommerceClient, shop: Shop) =>
  startCheckout(client, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [{ variant_id: shop.variantId, quantity: 1 }],
  });

type Body = components['schemas']['CheckoutComplete'];
type Order = components['schemas']['Order'];
type Checkout = components['schemas']['Checkout'];

const complete = (client: CommerceClient, started: StartedCheckout, body: Body) =>
  client.POST('/v1/checkouts/{id}/complete', { ...withSecret(started.checkout.id, started.secret), body });

const refund = (shop: Shop, orderId: string, amount: number) =>
  shop.api.POST('/v1/orders/{id}/refunds', { ...byId(orderId), body: { amount } });
const readOrder = async (shop: Shop, id: string) => (await shop.api.GET('/v1/orders/{id}', byId(id))).data!.data;
const stripeRefundsOf = (intentId: string) => [...stand.refunds.values()].filter((r) => r.payment_intent === intentId);
const ledger = async (customerId: string) =>
  (
    await app.deps.db.storeCreditTransaction.findMany({
      where: { customerId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })
  ).map((entry) => [entry.type, Number(entry.amount)]);

/** Posts `object` as a Stripe event of `type` to the project's webhook endpoint, signed as Stripe signs. */
function postEvent(shop: Shop, type: string, object: object) {
  const payload = JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object },
  });
  return fetch(`${app.baseUrl}/v1/payments/stripe/webhook/${shop.project.project.id}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    },
    body: payload,
  });
}

describe('a checkout paid wholly with store credit', () => {
  test('calls Stripe neither for the payment nor for its refund', async () => {
    const shop = await newShop();
    const jane = await customer(shop, 9900);
    const before = stand.seen.length;
    const answer = await complete(jane.client, await start(jane.client, shop), { store_credit: {} });
    expect(answer.response.status).toBe(201);
    const order = answer.data!.data as Order;
    expect(order.payments.map((p) => [p.provider, p.amount])).toEqual([['store_credit', 9900]]);
    const made = (await refund(shop, order.id, 9900)).data!.data;
    expect(made).toMatchObject({ status: 'succeeded', provider: 'store_credit', store_credit_amount: 9900 });
    expect(stand.seen.slice(before)).toEqual([]);
    expect(await balanceOf(shop.api, jane.id)).toBe(9900);
  });
});

describe('createOrderRefund of an order paid partly with store credit', () => {
  test('Stripe is asked only for the rest: amount minus the store credit part, never more than the PaymentIntent', async () => {
    const shop = await newShop();
    const jane = await customer(shop, 3000);
    const answer = await complete(jane.client, await start(jane.client, shop), {
      store_credit: {},
      payment: { payment_method: 'pm_card_visa' },
    });
    const order = answer.data!.data as Order;
    const intentId = order.payments[1].reference!;
    expect(stand.intents.get(intentId)!.amount).toBe(6900);
    const first = (await refund(shop, order.id, 5000)).data!.data;
    expect(first).toMatchObject({ store_credit_amount: 3000, status: 'succeeded', provider: 'stripe' });
    const second = (await refund(shop, order.id, 4900)).data!.data;
    expect(second).toMatchObject({ store_credit_amount: 0, status: 'succeeded', provider: 'stripe' });
    expect(stripeRefundsOf(intentId).map((r) => [r.amount, r.metadata.refund_id])).toEqual([
      [2000, first.id],
      [4900, second.id],
    ]);
    expect(await readOrder(shop, order.id)).toMatchObject({ financial_status: 'refunded', total_refunded: 9900 });
    expect(await balanceOf(shop.api, jane.id)).toBe(3000);
  });

  test('Stripe fails its part later (refund.failed): that part is given back, the store credit part stays returned once', async () => {
    const shop = await newShop();
    const jane = await customer(shop, 3000);
    const answer = await complete(jane.client, await start(jane.client, shop), {
      store_credit: {},
      payment: { payment_method: 'pm_card_refundFail' },
    });
    const order = answer.data!.data as Order;
    const made = (await refund(shop, order.id, 9900)).data!.data;
    expect(made).toMatchObject({ status: 'succeeded', store_credit_amount: 3000 });
    const failed = stand.failRefund(made.provider_reference!);
    expect(failed.amount).toBe(6900);
    for (let i = 0; i < 2; i++) expect((await postEvent(shop, 'refund.failed', failed)).status).toBe(200);
    const listed = (await shop.api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(listed).toEqual([expect.objectContaining({ id: made.id, status: 'failed', store_credit_amount: 3000 })]);
    expect(await readOrder(shop, order.id)).toMatchObject({
      financial_status: 'partially_refunded',
      total_refunded: 3000,
    });
    expect(await ledger(jane.id)).toEqual([
      ['issue', 3000],
      ['payment', -3000],
      ['refund', 3000],
    ]);
    const events = await shop.api.GET('/v1/events', { params: { query: { resource_id: made.id } } });
    expect(events.data!.data.map((e) => e.type)).toEqual(['refund.failed', 'refund.succeeded', 'refund.created']);
  });
});

/** A checkout paying `credit` of store credit and the rest through a PaymentIntent waiting for 3-D Secure. */
async function stepWithCredit(shop: Shop, credit: number) {
  const jane = await customer(shop, credit);
  const started = await start(jane.client, shop);
  const answer = await complete(jane.client, started, {
    store_credit: {},
    payment: { payment_method: 'pm_card_authenticationRequired' },
  });
  expect(answer.response.status).toBe(202);
  const payment = (answer.data!.data as Checkout).payment!;
  expect(payment.store_credit_amount).toBe(credit);
  expect(await balanceOf(shop.api, jane.id)).toBe(0);
  return { jane, started, intentId: payment.reference };
}

/** The step's hold as lapsed (its window passed), without waiting for it. */
async function lapse(checkoutId: string) {
  const past = new Date(Date.now() - 1000);
  await app.deps.db.checkout.update({ where: { id: checkoutId }, data: { reservedUntil: past } });
  await app.deps.db.inventoryReservation.updateMany({ where: { checkoutId }, data: { expiresAt: past } });
}

describe('a Stripe payment step holding store credit', () => {
  test('payment_intent.succeeded that can no longer be placed: the intent refunded, the held credit given back, once', async () => {
    const shop = await newShop(1);
    const { jane, started, intentId } = await stepWithCredit(shop, 2000);
    await lapse(started.checkout.id);
    // Someone else buys the last unit meanwhile.
    const other = storefront(app, shop.project.keys.publishable_test.token);
    const sold = await complete(other, await start(other, shop), { payment: { payment_method: 'pm_card_visa' } });
    expect(sold.response.status).toBe(201);
    const intent = stand.authenticate(intentId);
    for (let i = 0; i < 2; i++) expect((await postEvent(shop, 'payment_intent.succeeded', intent)).status).toBe(200);
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
    expect(stripeRefundsOf(intentId)).toEqual([expect.objectContaining({ amount: 7900, status: 'succeeded' })]);
    expect(await balanceOf(shop.api, jane.id)).toBe(2000);
    expect(await ledger(jane.id)).toEqual([
      ['issue', 2000],
      ['payment', -2000],
      ['payment_reversed', 2000],
    ]);
    expect(await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } })).toMatchObject({
      status: 'open',
      paymentReference: null,
      storeCreditAmount: 0n,
      storeCreditEntryId: null,
    });
  });

  test('payment_intent.succeeded while the step waits places the order with the held credit', async () => {
    const shop = await newShop();
    const { jane, started, intentId } = await stepWithCredit(shop, 2000);
    const intent = stand.authenticate(intentId);
    expect((await postEvent(shop, 'payment_intent.succeeded', intent)).status).toBe(200);
    const order = await app.deps.db.order.findFirstOrThrow({ where: { checkoutId: started.checkout.id } });
    expect((order.payments as Array<{ provider: string; amount: number }>).map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 2000],
      ['stripe', 7900],
    ]);
    expect(await ledger(jane.id)).toEqual([
      ['issue', 2000],
      ['payment', -2000],
    ]);
    expect(stripeRefundsOf(intentId)).toEqual([]);
  });

  test('confirmed again while the step still waits (a second 202): the held credit stays held and pays the order', async () => {
    const shop = await newShop();
    const { jane, started, intentId } = await stepWithCredit(shop, 2000);
    const waiting = await complete(jane.client, started, {});
    expect(waiting.response.status).toBe(202);
    expect((waiting.data!.data as Checkout).payment!.store_credit_amount).toBe(2000);
    stand.authenticate(intentId);
    const done = await complete(jane.client, started, {});
    expect(done.response.status).toBe(201);
    expect((done.data!.data as Order).payments.map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 2000],
      ['stripe', 7900],
    ]);
    expect(await ledger(jane.id)).toEqual([
      ['issue', 2000],
      ['payment', -2000],
    ]);
  });

  test('lapsed, then completed again: the held credit comes back first and is spent again, one order', async () => {
    const shop = await newShop();
    const { jane, started } = await stepWithCredit(shop, 2000);
    await lapse(started.checkout.id);
    const again = await complete(jane.client, started, {
      store_credit: {},
      payment: { payment_method: 'pm_card_visa' },
    });
    expect(again.response.status).toBe(201);
    const order = again.data!.data as Order;
    expect(order.payments.map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 2000],
      ['stripe', 7900],
    ]);
    expect(await ledger(jane.id)).toEqual([
      ['issue', 2000],
      ['payment', -2000],
      ['payment_reversed', 2000],
      ['payment', -2000],
    ]);
    expect(await balanceOf(shop.api, jane.id)).toBe(0);
  });

  test('lapsed: cancel-checkout-payment and release-checkout-credit, in either order, give the credit back once', async () => {
    const shop = await newShop();
    const { jane, started, intentId } = await stepWithCredit(shop, 2000);
    await lapse(started.checkout.id);
    const projectId = shop.project.project.id;
    const checkoutId = started.checkout.id;
    await jobs['cancel-checkout-payment'].handle(app.deps, { v: 1, projectId, checkoutId, reference: intentId });
    await jobs['release-checkout-credit'].handle(app.deps, { v: 1, projectId, checkoutId });
    await jobs['cancel-checkout-payment'].handle(app.deps, { v: 1, projectId, checkoutId, reference: intentId });
    expect(stand.intents.get(intentId)!.status).toBe('canceled');
    expect(await ledger(jane.id)).toEqual([
      ['issue', 2000],
      ['payment', -2000],
      ['payment_reversed', 2000],
    ]);
    // The other order: the credit job first, then the cancellation (which still cancels the intent).
    const next = await stepWithCredit(shop, 1000);
    await lapse(next.started.checkout.id);
    const ids = { v: 1 as const, projectId, checkoutId: next.started.checkout.id };
    await jobs['release-checkout-credit'].handle(app.deps, ids);
    await jobs['cancel-checkout-payment'].handle(app.deps, { ...ids, reference: next.intentId });
    expect(stand.intents.get(next.intentId)!.status).toBe('canceled');
    expect(await ledger(next.jane.id)).toEqual([
      ['issue', 1000],
      ['payment', -1000],
      ['payment_reversed', 1000],
    ]);
  });
});
