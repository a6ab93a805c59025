import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import Stripe from 'stripe';
import { jobs } from '../../../src/jobs/registry.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, type StartedCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { startStripeStandIn, STRIPE_PROJECT, type StripeStandIn } from '../../setup/stripe-stand-in.js';
import { useApp } from '../../setup/store.js';

// Refunds, cancellations and automatic refunds through the real `stripe` package against the local stand-in of
// Stripe's API (tests/setup/stripe-stand-in.ts).
let stand: StripeStandIn;
beforeAll(async () => {
  stand = await startStripeStandIn();
});
afterAll(async () => stand.close());
const app = useApp(() => ({ config: { stripeApiBase: stand.base } }));

const { stripe_secret_key: SECRET_KEY, stripe_webhook_secret: WEBHOOK_SECRET } = STRIPE_PROJECT;

interface Shop {
  project: CreatedProject;
  api: CommerceClient;
  shop: CommerceClient;
  variantId: string;
}

async function newShop(units = 5): Promise<Shop> {
  const project = await createProject(app, {
    ...STRIPE_PROJECT,
  });
  const api = app.client(project.keys.secret_test.token);
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: project.project.default_location_id, available: units },
  });
  return { project, api, shop: storefront(app, project.keys.publishable_test.token), variantId };
}

const start = (shop: Shop) =>
  startCheckout(shop.shop, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [{ variant_id: shop.variantId, quantity: 1 }],
  });

const complete = (shop: Shop, started: StartedCheckout, paymentMethod?: string) =>
  shop.shop.POST('/v1/checkouts/{id}/complete', {
    params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
    body: paymentMethod === undefined ? {} : { payment: { payment_method: paymentMethod } },
  });

type Order = components['schemas']['Order'];
type Checkout = components['schemas']['Checkout'];

async function paidOrder(shop: Shop, paymentMethod = 'pm_card_visa'): Promise<Order> {
  const answer = await complete(shop, await start(shop), paymentMethod);
  expect(answer.response.status).toBe(201);
  return answer.data!.data as Order;
}

const refund = (shop: Shop, orderId: string, amount: number) =>
  shop.api.POST('/v1/orders/{id}/refunds', { ...byId(orderId), body: { amount } });
const readOrder = async (shop: Shop, id: string) => (await shop.api.GET('/v1/orders/{id}', byId(id))).data!.data;
const refundsOf = async (shop: Shop, orderId: string) =>
  (await shop.api.GET('/v1/orders/{id}/refunds', byId(orderId))).data!.data;
const stripeRefundsOf = (intentId: string) => [...stand.refunds.values()].filter((r) => r.payment_intent === intentId);

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

describe('createOrderRefund through Stripe', () => {
  test("a Stripe Refund of the order's PaymentIntent, keyed by the refund: succeeded, with Stripe's re_ id", async () => {
    const shop = await newShop();
    const order = await paidOrder(shop);
    const intentId = order.payments[0].reference!;
    const answer = await refund(shop, order.id, 3000);
    expect(answer.response.status).toBe(201);
    const made = answer.data!.data;
    const [stripeRefund] = stripeRefundsOf(intentId);
    expect(made).toMatchObject({ status: 'succeeded', provider: 'stripe', provider_reference: stripeRefund.id });
    expect(stripeRefund).toMatchObject({
      amount: 3000,
      metadata: { refund_id: made.id, order_id: order.id, project_id: shop.project.project.id },
    });
    expect(stand.seen.filter((s) => s.path === '/v1/refunds')).toHaveLength(1);
    expect(await readOrder(shop, order.id)).toMatchObject({
      financial_status: 'partially_refunded',
      total_refunded: 3000,
    });
  });

  test('Stripe down: the refund is answered pending and counted; its job settles it when Stripe answers, refunding once', async () => {
    const shop = await newShop();
    const order = await paidOrder(shop);
    stand.unavailable = true;
    let pending;
    try {
      pending = (await refund(shop, order.id, order.total)).data!.data;
      expect(pending).toMatchObject({ status: 'pending', provider: 'stripe', provider_reference: null });
      expect(await readOrder(shop, order.id)).toMatchObject({
        financial_status: 'refunded',
        total_refunded: order.total,
      });
      // A second refund cannot pass what is left while the first is pending.
      expect((await refund(shop, order.id, 1)).response.status).toBe(400);
      const payload = { v: 1 as const, projectId: shop.project.project.id, refundId: pending.id };
      await expect(jobs['settle-refund'].handle(app.deps, payload)).rejects.toThrow('still pending');
    } finally {
      stand.unavailable = false;
    }
    const payload = { v: 1 as const, projectId: shop.project.project.id, refundId: pending.id };
    await jobs['settle-refund'].handle(app.deps, payload);
    await jobs['settle-refund'].handle(app.deps, payload);
    expect(stripeRefundsOf(order.payments[0].reference!)).toHaveLength(1);
    expect(await refundsOf(shop, order.id)).toEqual([expect.objectContaining({ id: pending.id, status: 'succeeded' })]);
  });

  test('a refund Stripe fails later (refund.failed event): failed, its amount given back; a replayed event changes nothing', async () => {
    const shop = await newShop();
    const order = await paidOrder(shop, 'pm_card_refundFail');
    const made = (await refund(shop, order.id, order.total)).data!.data;
    expect(made.status).toBe('succeeded');
    const failed = stand.failRefund(made.provider_reference!);
    for (let i = 0; i < 2; i++) expect((await postEvent(shop, 'refund.failed', failed)).status).toBe(200);
    expect(await refundsOf(shop, order.id)).toEqual([
      expect.objectContaining({ id: made.id, status: 'failed', failure_reason: 'declined' }),
    ]);
    expect(await readOrder(shop, order.id)).toMatchObject({ financial_status: 'paid', total_refunded: 0 });
    const events = await shop.api.GET('/v1/events', { params: { query: { resource_id: made.id } } });
    expect(events.data!.data.map((e) => e.type)).toEqual(['refund.failed', 'refund.succeeded', 'refund.created']);
  });

  test('charge.refunded settles a pending refund it lists', async () => {
    const shop = await newShop();
    const order = await paidOrder(shop);
    stand.unavailable = true;
    const pending = await refund(shop, order.id, 500).finally(() => (stand.unavailable = false));
    const id = pending.data!.data.id;
    // Stripe made the refund (its answer was lost); its event names it by the metadata.
    const stripeRefund = {
      id: 're_lostAnswer0001',
      object: 'refund',
      status: 'succeeded',
      metadata: { refund_id: id },
    };
    const charge = { id: 'ch_1', object: 'charge', refunds: { object: 'list', data: [stripeRefund] } };
    expect((await postEvent(shop, 'charge.refunded', charge)).status).toBe(200);
    expect(await refundsOf(shop, order.id)).toEqual([
      expect.objectContaining({ id, status: 'succeeded', provider_reference: 're_lostAnswer0001' }),
    ]);
  });
});

/** A checkout whose PaymentIntent waits for 3-D Secure, with its hold then lapsed (as once the window passed). */
async function lapsedStep(shop: Shop) {
  const started = await start(shop);
  const answer = await complete(shop, started, 'pm_card_authenticationRequired');
  expect(answer.response.status).toBe(202);
  const intentId = (answer.data!.data as Checkout).payment!.reference;
  const past = new Date(Date.now() - 1000);
  await app.deps.db.checkout.update({ where: { id: started.checkout.id }, data: { reservedUntil: past } });
  await app.deps.db.inventoryReservation.updateMany({
    where: { checkoutId: started.checkout.id },
    data: { expiresAt: past },
  });
  return { started, intentId };
}

describe('a lapsed payment step', () => {
  test('its job, due when the hold ends, opens the checkout again and cancels the PaymentIntent at Stripe', async () => {
    const shop = await newShop();
    const { started, intentId } = await lapsedStep(shop);
    const [job] = await app.deps.db.$queryRawUnsafe<
      Array<{ data: { v: 1; projectId: string; checkoutId: string; reference: string } }>
    >(
      `SELECT data FROM pgboss.job WHERE name = 'cancel-checkout-payment' AND data->>'checkoutId' = $1`,
      started.checkout.id,
    );
    expect(job.data).toEqual({
      v: 1,
      projectId: shop.project.project.id,
      checkoutId: started.checkout.id,
      reference: intentId,
    });
    await jobs['cancel-checkout-payment'].handle(app.deps, job.data);
    expect(stand.intents.get(intentId)!.status).toBe('canceled');
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
    // The shopper pays again with the same card: a new attempt, so a new PaymentIntent, not the cancelled one.
    const again = await complete(shop, started, 'pm_card_authenticationRequired');
    expect(again.response.status).toBe(202);
    const next = (again.data!.data as Checkout).payment!.reference;
    expect(next).not.toBe(intentId);
    stand.authenticate(next);
    expect((await complete(shop, started)).response.status).toBe(201);
  });

  test('the job leaves a step whose hold has not ended, and a checkout that became an order with it', async () => {
    const shop = await newShop();
    const started = await start(shop);
    const answer = await complete(shop, started, 'pm_card_authenticationRequired');
    const intentId = (answer.data!.data as Checkout).payment!.reference;
    const payload = {
      v: 1 as const,
      projectId: shop.project.project.id,
      checkoutId: started.checkout.id,
      reference: intentId,
    };
    await jobs['cancel-checkout-payment'].handle(app.deps, payload);
    expect(stand.intents.get(intentId)!.status).toBe('requires_action');
    stand.authenticate(intentId);
    expect((await complete(shop, started)).response.status).toBe(201);
    await jobs['cancel-checkout-payment'].handle(app.deps, payload);
    expect(stand.intents.get(intentId)!.status).toBe('succeeded');
  });

  // Stripe's events may never come (no stripe_webhook_secret, no endpoint set up at Stripe, a delivery lost): the job
  // reads the PaymentIntent itself, so money the shopper paid never stays without an order.
  test('the shopper confirmed but Stripe sends no event: the job places the order with the PaymentIntent', async () => {
    const shop = await newShop();
    const { started, intentId } = await lapsedStep(shop);
    stand.authenticate(intentId);
    const payload = { v: 1 as const, projectId: shop.project.project.id, checkoutId: started.checkout.id };
    await jobs['cancel-checkout-payment'].handle(app.deps, { ...payload, reference: intentId });
    const orders = await app.deps.db.order.findMany({ where: { checkoutId: started.checkout.id } });
    expect(orders).toEqual([expect.objectContaining({ financialStatus: 'paid' })]);
    const order = await readOrder(shop, orders[0].id);
    expect(order.payments).toEqual([expect.objectContaining({ provider: 'stripe', reference: intentId })]);
    expect(stripeRefundsOf(intentId)).toHaveLength(0);
    expect(stand.intents.get(intentId)!.status).toBe('succeeded');
    // Stripe's event arriving late changes nothing.
    expect((await postEvent(shop, 'payment_intent.succeeded', stand.intents.get(intentId)!)).status).toBe(200);
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(1);
    expect(stripeRefundsOf(intentId)).toHaveLength(0);
  });

  test('Stripe down when the hold ends: the checkout opens again all the same; a later run cancels the payment', async () => {
    const shop = await newShop();
    const { started, intentId } = await lapsedStep(shop);
    const payload = { v: 1 as const, projectId: shop.project.project.id, checkoutId: started.checkout.id };
    stand.unavailable = true;
    try {
      // The cancel cannot be asked either: the job fails, to be retried.
      await expect(
        jobs['cancel-checkout-payment'].handle(app.deps, { ...payload, reference: intentId }),
      ).rejects.toThrow();
    } finally {
      stand.unavailable = false;
    }
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
    await jobs['cancel-checkout-payment'].handle(app.deps, { ...payload, reference: intentId });
    expect(stand.intents.get(intentId)!.status).toBe('canceled');
  });

  test('the shopper confirmed, the units were sold meanwhile and Stripe sends no event: the job refunds in full', async () => {
    const shop = await newShop(1);
    const { started, intentId } = await lapsedStep(shop);
    expect((await complete(shop, await start(shop), 'pm_card_visa')).response.status).toBe(201);
    const intent = stand.authenticate(intentId);
    const payload = { v: 1 as const, projectId: shop.project.project.id, checkoutId: started.checkout.id };
    await jobs['cancel-checkout-payment'].handle(app.deps, { ...payload, reference: intentId });
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
    expect(stripeRefundsOf(intentId)).toEqual([
      expect.objectContaining({ amount: intent.amount, status: 'succeeded' }),
    ]);
    const records = await app.deps.db.unplacedPayment.findMany({ where: { projectId: shop.project.project.id } });
    expect(records).toEqual([expect.objectContaining({ reference: intentId, refundStatus: 'succeeded' })]);
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
    // The job run again (pg-boss retries) and Stripe's late event refund nothing more.
    await jobs['cancel-checkout-payment'].handle(app.deps, { ...payload, reference: intentId });
    expect((await postEvent(shop, 'payment_intent.succeeded', intent)).status).toBe(200);
    expect(stripeRefundsOf(intentId)).toHaveLength(1);
  });

  test('payment_intent.succeeded after the units were sold meanwhile: no order, the payment refunded in full and recorded once', async () => {
    const shop = await newShop(1);
    const { started, intentId } = await lapsedStep(shop);
    // Someone else buys the last unit meanwhile.
    expect((await complete(shop, await start(shop), 'pm_card_visa')).response.status).toBe(201);
    const intent = stand.authenticate(intentId);
    for (let i = 0; i < 2; i++) expect((await postEvent(shop, 'payment_intent.succeeded', intent)).status).toBe(200);
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
    const refunds = stripeRefundsOf(intentId);
    expect(refunds).toEqual([expect.objectContaining({ amount: intent.amount, status: 'succeeded' })]);
    const record = await app.deps.db.unplacedPayment.findMany({ where: { projectId: shop.project.project.id } });
    expect(record).toEqual([
      expect.objectContaining({
        checkoutId: started.checkout.id,
        provider: 'stripe',
        reference: intentId,
        amount: BigInt(intent.amount),
        currency: 'EUR',
        refundStatus: 'succeeded',
        refundReference: refunds[0].id,
      }),
    ]);
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
  });

  test('payment_intent.succeeded for a checkout already paid with another PaymentIntent refunds that payment', async () => {
    const shop = await newShop();
    const { started, intentId } = await lapsedStep(shop);
    const order = await complete(shop, started, 'pm_card_visa');
    expect(order.response.status).toBe(201);
    const intent = stand.authenticate(intentId);
    expect((await postEvent(shop, 'payment_intent.succeeded', intent)).status).toBe(200);
    expect(stripeRefundsOf(intentId)).toHaveLength(1);
    expect(stripeRefundsOf((order.data!.data as Order).payments[0].reference!)).toHaveLength(0);
    expect(await app.deps.db.order.count({ where: { projectId: shop.project.project.id } })).toBe(1);
  });
});

describe("receiveStripeWebhook: an unplaced payment's refund events", () => {
  test('refund.failed and a succeeded refund.updated arriving together end failed, whichever lands last', async () => {
    const shop = await newShop();
    const projectId = shop.project.project.id;
    // Pending refunds of unplaced payments, as refundUnplaced leaves them while Stripe has not settled them.
    const ids = Array.from({ length: 20 }, (_, i) => `upay_race${String(i).padStart(4, '0')}`);
    await app.deps.db.unplacedPayment.createMany({
      data: ids.map((id, i) => ({
        id,
        projectId,
        checkoutId: `chk_race${i}`,
        provider: 'stripe',
        reference: `pi_race${i}`,
        amount: 9900n,
        currency: 'EUR',
        refundStatus: 'pending',
      })),
    });
    const answers = await Promise.all(
      ids.flatMap((id, i) => {
        const refund = { id: `re_race${i}`, object: 'refund', amount: 9900, metadata: { unplaced_payment_id: id } };
        return [
          postEvent(shop, 'refund.failed', { ...refund, status: 'failed', failure_reason: 'declined' }),
          postEvent(shop, 'refund.updated', { ...refund, status: 'succeeded' }),
        ];
      }),
    );
    expect(answers.map((answer) => answer.status).filter((status) => status !== 200)).toEqual([]);
    const records = await app.deps.db.unplacedPayment.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
    expect(records.map((record) => [record.id, record.refundStatus, record.failureReason])).toEqual(
      ids.map((id) => [id, 'failed', 'declined']),
    );
    expect(records.map((record) => record.refundReference)).toEqual(ids.map((_, i) => `re_race${i}`));
  });
});

describe('payment_provider stripe without a secret key', () => {
  test('is refused with 400 at creation and when the key would be removed', async () => {
    const created = await app.platform.POST('/platform/v1/projects', {
      body: { name: 'No key', payment_provider: 'stripe' },
    });
    expect(created.response.status).toBe(400);
    expect(created.error).toMatchObject({ error: { code: 'invalid_request', field: 'payment_provider' } });
    const shop = await newShop();
    const id = shop.project.project.id;
    const removed = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id } },
      body: { stripe_secret_key: null },
    });
    expect(removed.response.status).toBe(400);
    expect(removed.error).toMatchObject({ error: { code: 'invalid_request', field: 'stripe_secret_key' } });
    const plain = await createProject(app, {});
    const chosen = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: plain.project.id } },
      body: { payment_provider: 'stripe' },
    });
    expect(chosen.response.status).toBe(400);
    expect(chosen.error).toMatchObject({ error: { field: 'payment_provider' } });
    // Key and choice together, or switching away first, are fine.
    const both = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: plain.project.id } },
      body: { payment_provider: 'stripe', stripe_secret_key: SECRET_KEY },
    });
    expect(both.response.status).toBe(200);
    const away = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id } },
      body: { payment_provider: 'manual', stripe_secret_key: null },
    });
    expect(away.data!.data).toMatchObject({ payment_provider: 'manual', stripe_secret_key_set: false });
  });
});

describe('a Stripe refund the provider cannot be asked for', () => {
  test('the project no longer has a Stripe key: the refund is answered failed, its amount given back (no 400 after a write)', async () => {
    const shop = await newShop();
    const order = await paidOrder(shop);
    const id = shop.project.project.id;
    const away = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id } },
      body: { payment_provider: 'manual', stripe_secret_key: null },
    });
    expect(away.response.status).toBe(200);
    const answer = await refund(shop, order.id, 1000);
    expect(answer.response.status).toBe(201);
    expect(answer.data!.data).toMatchObject({ status: 'failed', provider: 'stripe' });
    expect(answer.data!.data.failure_reason).toContain('stripe_secret_key is not set');
    expect(await readOrder(shop, order.id)).toMatchObject({ financial_status: 'paid', total_refunded: 0 });
  });
});
