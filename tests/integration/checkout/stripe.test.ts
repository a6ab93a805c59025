import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import Stripe from 'stripe';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, type StartedCheckout } from '../../factories/checkout.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { payToken } from '../../../src/modules/draft-orders/pay-link.js';
import { byId } from '../../setup/requests.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { startStripeStandIn, STRIPE_PROJECT, type StripeStandIn } from '../../setup/stripe-stand-in.js';
import { useApp } from '../../setup/store.js';

// The real `stripe` package against a local stand-in of Stripe's API (tests/setup/stripe-stand-in.ts).
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
}

async function newShop(): Promise<Shop> {
  const project = await createProject(app, {
    ...STRIPE_PROJECT,
  });
  return {
    project,
    api: app.client(project.keys.secret_test.token),
    shop: storefront(app, project.keys.publishable_test.token),
  };
}

async function readyCheckout(shop: Shop, units = 5): Promise<{ started: StartedCheckout; variantId: string }> {
  const product = await createProduct(shop.api, {
    title: 'Trail Runner 2',
    variants: [{ title: 'EU 42', price: 9900 }],
  });
  const variantId = product.variants[0].id;
  await shop.api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: shop.project.project.default_location_id, available: units },
  });
  const started = await startCheckout(shop.shop, {
    currency: 'EUR',
    email: 'jane@example.com',
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity: 1 }],
  });
  return { started, variantId };
}

const complete = (shop: Shop, started: StartedCheckout, paymentMethod?: string) =>
  shop.shop.POST('/v1/checkouts/{id}/complete', {
    params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret } },
    body: paymentMethod === undefined ? {} : { payment: { payment_method: paymentMethod } },
  });

type Order = components['schemas']['Order'];
type Checkout = components['schemas']['Checkout'];
const orderCount = (shop: Shop) => app.deps.db.order.count({ where: { projectId: shop.project.project.id } });

/** Posts `event` to the project's Stripe webhook endpoint, signed with `secret` as Stripe signs. */
function postEvent(shop: Shop, event: object, secret = WEBHOOK_SECRET, signature?: string) {
  const payload = JSON.stringify(event);
  const header = signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${app.baseUrl}/v1/payments/stripe/webhook/${shop.project.project.id}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
    body: payload,
  });
}

const intentEvent = (type: string, intent: object) => ({
  id: `evt_${Math.random().toString(36).slice(2)}`,
  object: 'event',
  type,
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  data: { object: intent },
});

/** A checkout whose PaymentIntent waits for 3-D Secure (202), and that intent. */
async function awaitingAction(shop: Shop) {
  const { started } = await readyCheckout(shop);
  const answer = await complete(shop, started, 'pm_card_authenticationRequired');
  expect(answer.response.status).toBe(202);
  const checkout = answer.data!.data as Checkout;
  return { started, checkout, intentId: checkout.payment!.reference };
}

/** A draft of one unit, the checkout its pay link opens, and that checkout's Stripe payment waiting for 3-D Secure. */
async function draftStep(shop: Shop) {
  const { variantId } = await readyCheckout(shop);
  const draft = await createDraftOrder(shop.api, {
    currency: 'EUR',
    customer_email: 'jane@example.com',
    shipping_address: BERLIN,
  });
  await addItems(shop.api, draft.id, [{ variant_id: variantId, quantity: 1 }]);
  const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: shop.project.project.id } });
  const opened = await shop.shop.POST('/v1/checkouts/from-draft', { body: { token: payToken(project, draft.id) } });
  expect(opened.response.status).toBe(201);
  const started = { checkout: opened.data!.data, secret: opened.data!.client_secret };
  const answer = await complete(shop, started, 'pm_card_authenticationRequired');
  expect(answer.response.status).toBe(202);
  return { draftId: draft.id, started, intentId: (answer.data!.data as Checkout).payment!.reference };
}

/** The merchant raises the draft's shipping while the shopper does 3-D Secure for the old total. */
async function raiseShipping(shop: Shop, draftId: string) {
  const raised = await shop.api.PATCH('/v1/draft-orders/{id}', { ...byId(draftId), body: { shipping_cost: 990 } });
  expect(raised.response.status).toBe(200);
}

describe('the stripe provider', () => {
  test('pm_card_visa: a PaymentIntent is created and confirmed, the order is paid with it recorded', async () => {
    const shop = await newShop();
    const { started } = await readyCheckout(shop);
    const answer = await complete(shop, started, 'pm_card_visa');
    expect(answer.response.status).toBe(201);
    const order = answer.data!.data as Order;
    expect(order.financial_status).toBe('paid');
    expect(order.payments).toEqual([
      expect.objectContaining({ provider: 'stripe', status: 'succeeded', amount: order.total, currency: 'EUR' }),
    ]);
    const intent = stand.intents.get(order.payments[0].reference!)!;
    expect(intent).toMatchObject({ amount: order.total, currency: 'eur', status: 'succeeded' });
    expect(intent.metadata.checkout_id).toBe(started.checkout.id);
    expect(stand.seen.at(-1)!.authorization).toBe(`Bearer ${SECRET_KEY}`);
  });

  test('pm_card_chargeDeclined answers 402 payment_declined and makes no order', async () => {
    const shop = await newShop();
    const { started } = await readyCheckout(shop);
    const answer = await complete(shop, started, 'pm_card_chargeDeclined');
    expect(answer.response.status).toBe(402);
    expect(answer.error).toMatchObject({ error: { code: 'payment_declined', field: 'payment.payment_method' } });
    expect(await orderCount(shop)).toBe(0);
  });

  test('requires_action answers 202 with next_action stripe_sdk and the client_secret; the second call completes', async () => {
    const shop = await newShop();
    const { started, checkout, intentId } = await awaitingAction(shop);
    expect(checkout.status).toBe('requires_action');
    expect(checkout.payment).toMatchObject({
      provider: 'stripe',
      next_action: { type: 'stripe_sdk', client_secret: stand.intents.get(intentId)!.client_secret },
    });
    const again = await complete(shop, started);
    expect(again.response.status).toBe(202);
    stand.authenticate(intentId);
    const done = await complete(shop, started);
    expect(done.response.status).toBe(201);
    expect((done.data!.data as Order).payments[0]).toMatchObject({ provider: 'stripe', reference: intentId });
  });

  test('the secrets are never answered: the project shows only whether they are set', async () => {
    const shop = await newShop();
    const answer = await app.platform.GET('/platform/v1/projects/{id}', {
      params: { path: { id: shop.project.project.id } },
    });
    expect(answer.data!.data).toMatchObject({ stripe_secret_key_set: true, stripe_webhook_secret_set: true });
    const text = JSON.stringify(answer.data);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(WEBHOOK_SECRET);
  });
});

describe('receiveStripeWebhook', () => {
  test('payment_intent.succeeded and the client call race: exactly one order, both answer success', async () => {
    for (let round = 0; round < 5; round++) {
      const shop = await newShop();
      const { started, intentId } = await awaitingAction(shop);
      const intent = stand.authenticate(intentId);
      const [webhook, client] = await Promise.all([
        postEvent(shop, intentEvent('payment_intent.succeeded', intent)),
        complete(shop, started),
      ]);
      expect(webhook.status).toBe(200);
      expect(client.response.status).toBe(201);
      expect(await orderCount(shop)).toBe(1);
      const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
      expect(checkout.status).toBe('completed');
      expect((client.data!.data as Order).id).toBe(checkout.orderId);
    }
  });

  test('payment_intent.succeeded alone completes the waiting checkout once (a replay changes nothing)', async () => {
    const shop = await newShop();
    const { started, intentId } = await awaitingAction(shop);
    const event = intentEvent('payment_intent.succeeded', stand.authenticate(intentId));
    const first = await postEvent(shop, event);
    expect(first.status).toBe(200);
    expect((await postEvent(shop, event)).status).toBe(200);
    expect(await orderCount(shop)).toBe(1);
    const order = await app.deps.db.order.findFirstOrThrow({ where: { projectId: shop.project.project.id } });
    expect(order.checkoutId).toBe(started.checkout.id);
    expect(order.financialStatus).toBe('paid');
  });

  test("payment_intent.succeeded for a draft's checkout the merchant changed meanwhile: no order, refunded in full", async () => {
    const shop = await newShop();
    const { draftId, intentId } = await draftStep(shop);
    await raiseShipping(shop, draftId);
    const intent = stand.authenticate(intentId);
    expect((await postEvent(shop, intentEvent('payment_intent.succeeded', intent))).status).toBe(200);
    expect(await orderCount(shop)).toBe(0);
    expect([...stand.refunds.values()].filter((refund) => refund.payment_intent === intentId)).toEqual([
      expect.objectContaining({ amount: intent.amount, status: 'succeeded' }),
    ]);
    expect((await shop.api.GET('/v1/draft-orders/{id}', byId(draftId))).data!.data.status).toBe('open');
  });

  test("the shopper's second call after the merchant changed the draft: 409; Stripe's event refunds the payment once", async () => {
    const shop = await newShop();
    const { draftId, started, intentId } = await draftStep(shop);
    await raiseShipping(shop, draftId);
    const intent = stand.authenticate(intentId);
    const again = await complete(shop, started);
    expect(again.response.status).toBe(409);
    expect(again.error!.error.code).toBe('conflict');
    expect(again.error!.error.message).toMatch(/changed after this checkout was opened.*refunded in full\.$/);
    expect(await orderCount(shop)).toBe(0);
    const refundsOfIntent = () => [...stand.refunds.values()].filter((refund) => refund.payment_intent === intentId);
    expect(refundsOfIntent()).toEqual([]);
    for (let i = 0; i < 2; i++)
      expect((await postEvent(shop, intentEvent('payment_intent.succeeded', intent))).status).toBe(200);
    expect(refundsOfIntent()).toEqual([expect.objectContaining({ amount: intent.amount, status: 'succeeded' })]);
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
    expect(await orderCount(shop)).toBe(0);
  });

  test('a forged signature answers 400 and changes nothing', async () => {
    const shop = await newShop();
    const { started, intentId } = await awaitingAction(shop);
    const event = intentEvent('payment_intent.succeeded', stand.authenticate(intentId));
    const forged = await postEvent(shop, event, 'whsec_notTheProjectsSecret0123456789');
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { code: 'invalid_request', field: 'Stripe-Signature' } });
    const garbage = await postEvent(shop, event, WEBHOOK_SECRET, 't=1,v1=deadbeef');
    expect(garbage.status).toBe(400);
    expect(await orderCount(shop)).toBe(0);
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout.status).toBe('requires_action');
  });

  test('payment_intent.payment_failed releases the held units and opens the checkout again', async () => {
    const shop = await newShop();
    const { started, intentId } = await awaitingAction(shop);
    const intent = { ...stand.intents.get(intentId)!, status: 'requires_payment_method' };
    expect((await postEvent(shop, intentEvent('payment_intent.payment_failed', intent))).status).toBe(200);
    const checkout = await app.deps.db.checkout.findUniqueOrThrow({ where: { id: started.checkout.id } });
    expect(checkout).toMatchObject({ status: 'open', paymentReference: null });
    expect(await app.deps.db.inventoryReservation.count({ where: { checkoutId: started.checkout.id } })).toBe(0);
  });
});
