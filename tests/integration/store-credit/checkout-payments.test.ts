import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import type { AppDeps } from '../../../src/app-deps.js';
import { jobs } from '../../../src/jobs/registry.js';
import { deliverWakeUps } from '../../../src/modules/webhooks/deliver.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';

const store = useStore({
  project: { currency: 'EUR', payment_provider: 'test', checkouts_per_ip_per_minute: 1_000_000 },
  app: { config: { allowPrivateNetworkTargets: true } },
});
const { app, api } = store;

type Order = components['schemas']['Order'];
type Checkout = components['schemas']['Checkout'];
type Body = components['schemas']['CheckoutComplete'];

let variantId: string;
beforeAll(async () => {
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: store.project.default_location_id, available: 1000 },
  });
});

/** A registered customer: their id and their signed-in storefront client. */
async function customer(): Promise<{ id: string; shop: CommerceClient }> {
  const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
  return { id: session.customer.id, shop: signedIn(app, store.keys.publishable_test.token, session.access_token) };
}

/** A checkout of `quantity` units (9900 each, no shipping rates, no tax) ready to complete. */
const ready = (shop: CommerceClient, quantity = 1) =>
  startCheckout(shop, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity }],
  });

const complete = (shop: CommerceClient, started: StartedCheckout, body: Body) =>
  shop.POST('/v1/checkouts/{id}/complete', { ...withSecret(started.checkout.id, started.secret), body });

const entriesOf = (customerId: string) =>
  app.deps.db.storeCreditTransaction.findMany({
    where: { customerId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
const ledgerSum = async (customerId: string) =>
  (await entriesOf(customerId)).reduce((total, entry) => total + Number(entry.amount), 0);

describe('completeCheckout with store_credit', () => {
  test('credit covering the total pays the order alone: no provider call, order paid, store_credit.used', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 12000);
    const started = await ready(jane.shop);
    // No payment.token: the test provider would answer 400 if it were called.
    const answer = await complete(jane.shop, started, { store_credit: {} });
    expect(answer.response.status).toBe(201);
    const order = answer.data!.data as Order;
    expect(order).toMatchObject({ financial_status: 'paid', total: 9900, customer_id: jane.id });
    const [payment] = await entriesOf(jane.id).then((entries) => entries.filter((e) => e.type === 'payment'));
    expect(order.payments).toEqual([
      {
        provider: 'store_credit',
        status: 'succeeded',
        amount: 9900,
        currency: 'EUR',
        reference: payment.id,
        created_at: order.created_at,
      },
    ]);
    expect(payment).toMatchObject({ amount: -9900n, orderId: order.id, checkoutId: started.checkout.id });
    expect(await balanceOf(api, jane.id)).toBe(2100);
    const events = await api.GET('/v1/events', { params: { query: { resource_id: payment.id } } });
    expect(events.data!.data.map((event) => [event.type, event.actor_id])).toEqual([['store_credit.used', jane.id]]);
  });

  test('part with credit, the rest through the provider: two payments that add up to the total', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 5000);
    const started = await ready(jane.shop, 2);
    const answer = await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } });
    expect(answer.response.status).toBe(201);
    const order = answer.data!.data as Order;
    expect(order.financial_status).toBe('paid');
    expect(order.payments.map((p) => [p.provider, p.status, p.amount])).toEqual([
      ['store_credit', 'succeeded', 5000],
      ['test', 'succeeded', 14800],
    ]);
    expect(await balanceOf(api, jane.id)).toBe(0);
  });

  test('an exact amount spends that much; the manual provider leaves the rest pending', async () => {
    const manual = await app.platform.PATCH('/platform/v1/projects/{id}', {
      ...byId(store.project.id),
      body: { payment_provider: 'manual' },
    });
    expect(manual.response.status).toBe(200);
    try {
      const jane = await customer();
      await issueCredit(api, jane.id, 5000);
      const started = await ready(jane.shop);
      const answer = await complete(jane.shop, started, { store_credit: { amount: 1500 } });
      const order = answer.data!.data as Order;
      expect(order.financial_status).toBe('pending');
      expect(order.payments.map((p) => [p.provider, p.status, p.amount])).toEqual([
        ['store_credit', 'succeeded', 1500],
        ['manual', 'pending', 8400],
      ]);
      expect(await balanceOf(api, jane.id)).toBe(3500);
    } finally {
      await app.platform.PATCH('/platform/v1/projects/{id}', {
        ...byId(store.project.id),
        body: { payment_provider: 'test' },
      });
    }
  });

  test('an amount above the balance is 409 insufficient_store_credit; above the total 400; nothing written', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 1000);
    const started = await ready(jane.shop);
    const short = await complete(jane.shop, started, {
      store_credit: { amount: 2000 },
      payment: { token: 'tok_test_success' },
    });
    expect(short.response.status).toBe(409);
    expect(short.error!.error).toEqual({
      code: 'insufficient_store_credit',
      message: "The customer's store credit is 1000 (minor units of EUR), less than store_credit.amount 2000.",
      field: 'store_credit.amount',
    });
    const above = await complete(jane.shop, started, { store_credit: { amount: 9901 } });
    expect(above.response.status).toBe(400);
    expect(above.error!.error).toMatchObject({ code: 'invalid_request', field: 'store_credit.amount' });
    expect(await balanceOf(api, jane.id)).toBe(1000);
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
    expect(await app.deps.db.inventoryReservation.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
  });

  test('a declined rest spends no credit (402)', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 1000);
    const started = await ready(jane.shop);
    const answer = await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_decline' } });
    expect(answer.response.status).toBe(402);
    expect(await balanceOf(api, jane.id)).toBe(1000);
    expect((await entriesOf(jane.id)).map((e) => e.type)).toEqual(['issue']);
  });

  test("only the checkout's signed-in customer spends it: a guest checkout, or its secret alone, is 400", async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 20000);
    const guest = storefront(app, store.keys.publishable_test.token);
    const guestCheckout = await ready(guest);
    const noCustomer = await complete(guest, guestCheckout, { store_credit: {} });
    expect(noCustomer.response.status).toBe(400);
    expect(noCustomer.error!.error.field).toBe('store_credit');
    const hers = await ready(jane.shop);
    const bySecret = await complete(guest, hers, { store_credit: {}, payment: { token: 'tok_test_success' } });
    expect(bySecret.response.status).toBe(400);
    expect(bySecret.error!.error).toMatchObject({ code: 'invalid_request', field: 'store_credit' });
    expect(await balanceOf(api, jane.id)).toBe(20000);
  });
});

describe('store credit with a payment step (202)', () => {
  test('is held while the step waits (payment.store_credit_amount) and linked to the order when it completes', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 4000);
    const started = await ready(jane.shop);
    const pending = await complete(jane.shop, started, {
      store_credit: {},
      payment: { token: 'tok_test_requires_action' },
    });
    expect(pending.response.status).toBe(202);
    const checkout = pending.data!.data as Checkout;
    expect(checkout.payment).toMatchObject({ amount: 5900, store_credit_amount: 4000 });
    expect(await balanceOf(api, jane.id)).toBe(0);
    const [release] = await app.deps.db.$queryRawUnsafe<
      Array<{ data: { v: 1; projectId: string; checkoutId: string }; start_after: Date }>
    >(
      `SELECT data, start_after FROM pgboss.job WHERE name = 'release-checkout-credit' AND data->>'checkoutId' = $1`,
      started.checkout.id,
    );
    expect(release.data).toEqual({ v: 1, projectId: store.project.id, checkoutId: started.checkout.id });
    expect(release.start_after.toISOString()).toBe(checkout.payment!.reserved_until);
    const done = await complete(jane.shop, started, {});
    expect(done.response.status).toBe(201);
    const order = done.data!.data as Order;
    expect(order.payments.map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 4000],
      ['test', 5900],
    ]);
    const payments = (await entriesOf(jane.id)).filter((e) => e.type === 'payment');
    expect(payments.map((e) => [e.amount, e.orderId])).toEqual([[-4000n, order.id]]);
    // The job at the step's end finds the order placed and changes nothing.
    await jobs['release-checkout-credit'].handle(app.deps, release.data);
    expect(await balanceOf(api, jane.id)).toBe(0);
  });

  test('comes back with its expiry when the step lapses (release-checkout-credit), once', async () => {
    const jane = await customer();
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    await issueCredit(api, jane.id, 3000, { expires_at: expiresAt });
    const started = await ready(jane.shop);
    const pending = await complete(jane.shop, started, {
      store_credit: { amount: 2000 },
      payment: { token: 'tok_test_requires_action' },
    });
    expect(pending.response.status).toBe(202);
    expect(await balanceOf(api, jane.id)).toBe(1000);
    // The step's window has passed (as the checkout tests do, without waiting 15 minutes).
    await app.deps.db.checkout.update({
      where: { id: started.checkout.id },
      data: { reservedUntil: new Date(Date.now() - 1000) },
    });
    const payload = { v: 1 as const, projectId: store.project.id, checkoutId: started.checkout.id };
    await jobs['release-checkout-credit'].handle(app.deps, payload);
    await jobs['release-checkout-credit'].handle(app.deps, payload);
    const balance = (await api.GET('/v1/customers/{id}/store-credit', byId(jane.id))).data!.data;
    expect(balance).toMatchObject({ balance: 3000, next_expiry: { amount: 3000, expires_at: expiresAt } });
    expect((await entriesOf(jane.id)).map((e) => [e.type, Number(e.amount)])).toEqual([
      ['issue', 3000],
      ['payment', -2000],
      ['payment_reversed', 2000],
    ]);
    const reopened = await jane.shop.GET('/v1/checkouts/{id}', withSecret(started.checkout.id, started.secret));
    expect(reopened.data!.data).toMatchObject({ status: 'open', payment: null });
    expect(await app.deps.db.checkout.findUnique({ where: { id: started.checkout.id } })).toMatchObject({
      status: 'open',
      storeCreditAmount: 0n,
      storeCreditEntryId: null,
    });
    // Completed again, it spends the credit afresh.
    const again = await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } });
    expect((again.data!.data as Order).payments[0]).toMatchObject({ provider: 'store_credit', amount: 3000 });
    expect(await ledgerSum(jane.id)).toBe(0);
  });
});

describe('createOrderRefund of an order paid with store credit', () => {
  test('returns the store credit part as store credit first (store_credit.issued); the rest is money', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 3000);
    const started = await ready(jane.shop);
    const order = (await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } }))
      .data!.data as Order;
    const first = await api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: 2000 } });
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({ amount: 2000, store_credit_amount: 2000 });
    const second = await api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: 4000 } });
    expect(second.data!.data).toMatchObject({ amount: 4000, store_credit_amount: 1000 });
    const returned = (await entriesOf(jane.id)).filter((e) => e.type === 'refund');
    expect(returned.map((e) => [Number(e.amount), e.orderId, e.refundId, e.expiresAt])).toEqual([
      [2000, order.id, first.data!.data.id, null],
      [1000, order.id, second.data!.data.id, null],
    ]);
    expect(await balanceOf(api, jane.id)).toBe(3000);
    expect(await ledgerSum(jane.id)).toBe(3000);
    const events = await api.GET('/v1/events', { params: { query: { resource_id: returned[0].id } } });
    expect(events.data!.data.map((event) => event.type)).toEqual(['store_credit.issued']);
  });

  test('store_credit_refund_method original_payment refunds it as money: no credit comes back', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 9900);
    const started = await ready(jane.shop);
    const order = (await complete(jane.shop, started, { store_credit: {} })).data!.data as Order;
    const refund = await api.POST('/v1/orders/{id}/refunds', {
      ...byId(order.id),
      body: { amount: 9900, store_credit_refund_method: 'original_payment' },
    });
    expect(refund.response.status).toBe(201);
    expect(refund.data!.data.store_credit_amount).toBe(0);
    expect(await balanceOf(api, jane.id)).toBe(0);
  });

  test('a money refund first leaves the store credit part whole: later refunds return it as credit, not as money', async () => {
    // 9900 paid: 3000 store credit, 6900 through the provider.
    const jane = await customer();
    await issueCredit(api, jane.id, 3000);
    const started = await ready(jane.shop);
    const order = (await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } }))
      .data!.data as Order;
    const money = await api.POST('/v1/orders/{id}/refunds', {
      ...byId(order.id),
      body: { amount: 6900, store_credit_refund_method: 'original_payment' },
    });
    expect(money.data!.data).toMatchObject({ amount: 6900, store_credit_amount: 0 });
    // "up to what was paid with store credit and not yet returned as store credit": all 3000 of it.
    const rest = await api.POST('/v1/orders/{id}/refunds', { ...byId(order.id), body: { amount: 3000 } });
    expect(rest.response.status).toBe(201);
    expect(rest.data!.data).toMatchObject({ amount: 3000, store_credit_amount: 3000, provider: 'store_credit' });
    expect(await balanceOf(api, jane.id)).toBe(3000);
    // The provider gave back at most what it took.
    const refunds = await app.deps.db.refund.findMany({ where: { orderId: order.id } });
    const throughProvider = refunds.reduce((sum, r) => sum + Number(r.amount - r.storeCreditAmount), 0);
    expect(throughProvider).toBe(6900);
  });
});

describe('store_credit.used webhook', () => {
  let receiver: WebhookReceiver;
  let agent: OutboundAgent;
  let deps: AppDeps;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    agent = new OutboundAgent({ ca: receiver.cert });
    deps = { ...app.deps, outbound: agent };
  });
  afterAll(async () => {
    await receiver.close();
    await agent.close();
  });

  test('a subscription to store_credit.used receives the payment entry as the API shows it', async () => {
    await createWebhook(api, receiver.url('/credit'), { events: ['store_credit.used'] });
    const jane = await customer();
    await issueCredit(api, jane.id, 2500);
    const started = await ready(jane.shop);
    const order = (await complete(jane.shop, started, { store_credit: {}, payment: { token: 'tok_test_success' } }))
      .data!.data as Order;
    const pending = await app.deps.db.webhookDelivery.findMany({ where: { status: 'pending' }, select: { id: true } });
    await deliverWakeUps(
      deps,
      pending.map((d) => ({ v: 1 as const, deliveryId: d.id })),
    );
    const bodies = receiver.on('/credit').map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    const history = await api.GET('/v1/customers/{id}/store-credit/transactions', byId(jane.id));
    const payment = history.data!.data.find((entry) => entry.type === 'payment')!;
    expect(bodies).toEqual([expect.objectContaining({ type: 'store_credit.used', data: payment })]);
    expect(payment).toMatchObject({ amount: -2500, balance_after: 0, order_id: order.id });
  });
});

describe('concurrent completions spending one balance', () => {
  /** `count` variants of 9900 with stock, so concurrent checkouts meet on the credit account rather than on a variant. */
  async function variants(count: number): Promise<string[]> {
    const product = await createProduct(api, {
      title: 'Gift box',
      variants: Array.from({ length: count }, (_, i) => ({ title: `Box ${i}`, price: 9900 })),
    });
    for (const variant of product.variants) {
      await api.PUT('/v1/inventory-levels', {
        body: { variant_id: variant.id, location_id: store.project.default_location_id, available: 10 },
      });
    }
    return product.variants.map((variant) => variant.id);
  }

  const checkoutsOf = (shop: CommerceClient, ids: string[]) =>
    Promise.all(
      ids.map((id) =>
        startCheckout(shop, {
          currency: 'EUR',
          email: 'jane@example.com',
          shipping_address: BERLIN,
          lines: [{ variant_id: id, quantity: 1 }],
        }),
      ),
    );

  test('10 completions of 1000 each on a balance of 5000: 5 pay with credit, 5 answer 409, balance 0, never below', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 5000);
    const started = await checkoutsOf(jane.shop, await variants(10));
    const answers = await Promise.all(
      started.map((checkout) =>
        complete(jane.shop, checkout, { store_credit: { amount: 1000 }, payment: { token: 'tok_test_success' } }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    expect(new Set(answers.filter((a) => a.error).map((a) => a.error!.error.code))).toEqual(
      new Set(['insufficient_store_credit']),
    );
    expect(await balanceOf(api, jane.id)).toBe(0);
    expect(await ledgerSum(jane.id)).toBe(0);
    const entries = await entriesOf(jane.id);
    expect(entries.every((entry) => entry.balanceAfter >= 0n)).toBe(true);
    expect(entries.filter((entry) => entry.type === 'payment')).toHaveLength(5);
  });

  test('10 completions spending what they can of 25000: 10 orders, 25000 spent in all, the rest paid by the provider', async () => {
    const jane = await customer();
    await issueCredit(api, jane.id, 25000);
    const started = await checkoutsOf(jane.shop, await variants(10));
    const answers = await Promise.all(
      started.map((checkout) =>
        complete(jane.shop, checkout, { store_credit: {}, payment: { token: 'tok_test_success' } }),
      ),
    );
    expect(answers.map((answer) => answer.response.status)).toEqual(Array(10).fill(201));
    const credit = answers
      .flatMap((answer) => (answer.data!.data as Order).payments)
      .filter((payment) => payment.provider === 'store_credit')
      .reduce((total, payment) => total + payment.amount, 0);
    expect(credit).toBe(25000);
    expect(await balanceOf(api, jane.id)).toBe(0);
    expect(await ledgerSum(jane.id)).toBe(0);
  });
});
