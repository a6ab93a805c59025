import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, withSecret } from '../../factories/checkout.factory.js';
import { addItems, createDraftOrder, readDraft } from '../../factories/draft-order.factory.js';
import { storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

let project: CreatedProject;
let api: CommerceClient;
let shop: CommerceClient;
let variantId: string;

beforeAll(async () => {
  project = await createProject(app, {
    name: 'Acme Outdoor',
    domain: 'shop.acme-outdoor.com',
    domain_verified: true,
    currency: 'EUR',
    payment_provider: 'test',
    checkouts_per_ip_per_minute: 1_000_000,
    tax: { enabled: true, inclusive: true, rates: [{ country: 'DE', rate: 0.19 }] },
  });
  api = app.client(project.keys.secret_test.token);
  shop = storefront(app, project.keys.publishable_test.token);
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  variantId = product.variants[0].id;
  const level = await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: project.project.default_location_id, available: 100 },
  });
  expect(level.response.status).toBe(200);
});

type Order = components['schemas']['Order'];

/** A sent draft (2 units of 9900, shipping 490 as the merchant set it) and the pay link its e-mail carries. */
async function sentDraft(email: string): Promise<{ draftId: string; payUrl: string }> {
  const draft = await createDraftOrder(api, {
    currency: 'EUR',
    customer_email: email,
    shipping_address: BERLIN,
  });
  const shipping = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { shipping_cost: 490 } });
  expect(shipping.response.status).toBe(200);
  await addItems(api, draft.id, [{ variant_id: variantId, quantity: 2 }]);
  const sent = await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
  expect(sent.response.status).toBe(200);
  const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
    params: { path: { id: project.project.id }, query: { to: email } },
  });
  const [mail] = outbox.data!.data;
  const payUrl = mail.data.pay_url as string;
  expect(mail.text).toContain(payUrl);
  return { draftId: draft.id, payUrl };
}

/** The token the storefront's pay page reads from the link. */
const tokenOf = (payUrl: string) => new URL(payUrl).searchParams.get('token')!;

async function openCheckout(payUrl: string) {
  const { data, response } = await shop.POST('/v1/checkouts/from-draft', { body: { token: tokenOf(payUrl) } });
  expect(response.status).toBe(201);
  return { checkout: data!.data, secret: data!.client_secret };
}

const complete = (id: string, secret: string, token = 'tok_test_success') =>
  shop.POST('/v1/checkouts/{id}/complete', { ...withSecret(id, secret), body: { payment: { token } } });

describe('createCheckoutFromDraft', () => {
  test("the payment-request e-mail's link opens a checkout of the draft: its lines, prices, shipping and total", async () => {
    const { draftId, payUrl } = await sentDraft('link@example.com');
    expect(payUrl).toMatch(new RegExp(`^https://shop\\.acme-outdoor\\.com/checkout/${draftId}\\?token=`));
    const draft = await readDraft(api, draftId);
    const { checkout, secret } = await openCheckout(payUrl);
    expect(secret).toMatch(/^chks_/);
    expect(checkout).toMatchObject({
      status: 'open',
      draft_order_id: draftId,
      email: 'link@example.com',
      currency: 'EUR',
      lines: [{ variant_id: variantId, quantity: 2, unit_price: 9900, total: 19800 }],
      subtotal: 19800,
      shipping_cost: 490,
      tax: draft.tax,
      total: draft.total,
    });
    expect(checkout.shipping_address).toMatchObject({ line1: BERLIN.line1, country: 'DE' });
    const read = await shop.GET('/v1/checkouts/{id}', withSecret(checkout.id, secret));
    expect(read.data!.data.total).toBe(draft.total);
  });

  test('a forged, altered, malformed or other project token answers 404', async () => {
    const { draftId, payUrl } = await sentDraft('forged@example.com');
    const token = tokenOf(payUrl);
    const other = await createProject(app, { currency: 'EUR' });
    const otherShop = storefront(app, other.keys.publishable_test.token);
    // The last character of a 32-byte signature carries two unused bits: B for A decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1];
    expect(Buffer.from(twin.split('.')[1], 'base64url')).toEqual(Buffer.from(token.split('.')[1], 'base64url'));
    const middle = token.length - 10;
    const flipped = token.slice(0, middle) + (token[middle] === 'x' ? 'y' : 'x') + token.slice(middle + 1);
    for (const [client, candidate] of [
      [shop, `${draftId}.${'A'.repeat(43)}`],
      [shop, flipped],
      [shop, twin],
      [shop, draftId],
      [shop, 'not-a-token'],
      [otherShop, token],
    ] as const) {
      const { error, response } = await client.POST('/v1/checkouts/from-draft', { body: { token: candidate } });
      expect(response.status).toBe(404);
      expect(error).toMatchObject({ error: { code: 'not_found', message: 'This pay link is not valid.' } });
    }
    expect(await app.deps.db.checkout.count({ where: { draftOrderId: draftId } })).toBe(0);
  });

  test('a missing token is 400', async () => {
    const response = await fetch(`${app.baseUrl}/v1/checkouts/from-draft`, {
      method: 'POST',
      headers: { 'X-API-Key': project.keys.publishable_test.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ error: { field: 'token' } });
  });

  test("the draft's checkout cannot be changed: lines and shipping answer 409 checkout_locked", async () => {
    const { payUrl } = await sentDraft('locked@example.com');
    const { checkout, secret } = await openCheckout(payUrl);
    const add = await shop.POST('/v1/checkouts/{id}/lines', {
      ...withSecret(checkout.id, secret),
      body: { lines: [{ variant_id: variantId, quantity: 1 }] },
    });
    const change = await shop.PATCH('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: checkout.lines[0].id }, header: { 'X-Checkout-Secret': secret } },
      body: { quantity: 5 },
    });
    const remove = await shop.DELETE('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: checkout.lines[0].id }, header: { 'X-Checkout-Secret': secret } },
    });
    const shipping = await shop.PATCH('/v1/checkouts/{id}', {
      ...withSecret(checkout.id, secret),
      body: { shipping_address: { ...BERLIN, city: 'Hamburg' } },
    });
    for (const answer of [add, change, remove, shipping]) {
      expect(answer.response.status).toBe(409);
      expect(answer.error).toMatchObject({ error: { code: 'checkout_locked' } });
    }
    const read = await shop.GET('/v1/checkouts/{id}', withSecret(checkout.id, secret));
    expect(read.data!.data).toMatchObject({
      lines: [{ quantity: 2 }],
      shipping_cost: 490,
      updated_at: checkout.updated_at,
    });
  });
});

describe('completeCheckout of a draft', () => {
  test('paying completes the draft into its order once; completing again answers the same order', async () => {
    const { draftId, payUrl } = await sentDraft('pay@example.com');
    const draft = await readDraft(api, draftId);
    const { checkout, secret } = await openCheckout(payUrl);
    const first = await complete(checkout.id, secret);
    expect(first.response.status).toBe(201);
    const order = first.data!.data as Order;
    expect(order).toMatchObject({
      draft_order_id: draftId,
      checkout_id: checkout.id,
      email: 'pay@example.com',
      total: draft.total,
      shipping_cost: 490,
      financial_status: 'paid',
      line_items: [{ variant_id: variantId, quantity: 2, unit_price: 9900 }],
      payments: [{ provider: 'test', status: 'succeeded', amount: draft.total }],
    });
    const completed = await readDraft(api, draftId);
    expect(completed).toMatchObject({ status: 'completed', order_id: order.id });

    const again = await complete(checkout.id, secret);
    expect(again.response.status).toBe(201);
    expect((again.data!.data as Order).id).toBe(order.id);
    expect(await app.deps.db.order.count({ where: { draftOrderId: draftId } })).toBe(1);
    const events = await app.deps.db.storeEvent.findMany({
      where: {
        projectId: project.project.id,
        type: { in: ['order.created', 'draft_order.completed'] },
        resourceId: { in: [order.id, draftId] },
      },
    });
    expect(events.map((event) => event.type).sort()).toEqual(['draft_order.completed', 'order.created']);

    const opened = await shop.POST('/v1/checkouts/from-draft', { body: { token: tokenOf(payUrl) } });
    expect(opened.response.status).toBe(409);
    expect(opened.error).toMatchObject({ error: { code: 'draft_order_completed' } });
  });

  test('a payment that needs another step answers 202; the second call completes the draft', async () => {
    const { draftId, payUrl } = await sentDraft('step@example.com');
    const { checkout, secret } = await openCheckout(payUrl);
    const pending = await complete(checkout.id, secret, 'tok_test_requires_action');
    expect(pending.response.status).toBe(202);
    expect((await readDraft(api, draftId)).status).toBe('sent');
    const done = await shop.POST('/v1/checkouts/{id}/complete', { ...withSecret(checkout.id, secret), body: {} });
    expect(done.response.status).toBe(201);
    expect(done.data!.data).toMatchObject({ draft_order_id: draftId, financial_status: 'paid' });
    expect((await readDraft(api, draftId)).status).toBe('completed');
  });

  test("order.created's webhook payload carries the checkout and its payment (the order is created with them)", async () => {
    const webhook = await createWebhook(api, 'https://pay-link-hooks.example.com/', { events: ['order.created'] });
    try {
      const { draftId, payUrl } = await sentDraft('hooked@example.com');
      const { checkout, secret } = await openCheckout(payUrl);
      const done = await complete(checkout.id, secret);
      expect(done.response.status).toBe(201);
      const order = done.data!.data as Order;
      const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
      const event = await app.deps.db.webhookEvent.findUniqueOrThrow({ where: { id: delivery.eventId } });
      const payload = JSON.parse(event.body) as { type: string; data: Order };
      expect(payload.type).toBe('order.created');
      expect(payload.data).toMatchObject({
        id: order.id,
        draft_order_id: draftId,
        checkout_id: checkout.id,
        payments: [
          { provider: 'test', status: 'succeeded', amount: order.total, reference: order.payments[0].reference },
        ],
      });
    } finally {
      await api.DELETE('/v1/webhooks/{id}', byId(webhook.id));
    }
  });

  test('a declined payment leaves the draft open and unpaid', async () => {
    const { draftId, payUrl } = await sentDraft('decline@example.com');
    const { checkout, secret } = await openCheckout(payUrl);
    const declined = await complete(checkout.id, secret, 'tok_test_decline');
    expect(declined.response.status).toBe(402);
    expect((await readDraft(api, draftId)).status).toBe('sent');
    expect(await app.deps.db.order.count({ where: { draftOrderId: draftId } })).toBe(0);
  });

  test('a draft the merchant changed after the link was opened answers 409 conflict; opened again, it pays the new total', async () => {
    const { draftId, payUrl } = await sentDraft('changed@example.com');
    const { checkout, secret } = await openCheckout(payUrl);
    expect(checkout.total).toBe(2 * 9900 + 490);
    const raised = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draftId), body: { shipping_cost: 990 } });
    expect(raised.data!.data.total).toBe(2 * 9900 + 990);
    const stale = await complete(checkout.id, secret);
    expect(stale.response.status).toBe(409);
    expect(stale.error!.error.code).toBe('conflict');
    expect(stale.error!.error.message).toMatch(
      /changed after this checkout was opened.*20790 EUR.*Nothing was charged/,
    );
    expect((await readDraft(api, draftId)).status).toBe('sent');
    expect(await app.deps.db.order.count({ where: { draftOrderId: draftId } })).toBe(0);
    const fresh = await openCheckout(payUrl);
    expect(fresh.checkout.total).toBe(2 * 9900 + 990);
    const paid = await complete(fresh.checkout.id, fresh.secret);
    expect(paid.response.status).toBe(201);
    const order = paid.data!.data as Order;
    expect(order).toMatchObject({ total: 2 * 9900 + 990, financial_status: 'paid' });
    expect(order.payments.reduce((sum, payment) => sum + payment.amount, 0)).toBe(order.total);
  });

  test('a draft changed while its checkout completes: each order is paid exactly its total, or 409 and nothing', async () => {
    const opened = [];
    for (let i = 0; i < 6; i++) {
      const { draftId, payUrl } = await sentDraft(`race${i}@example.com`);
      opened.push({ draftId, ...(await openCheckout(payUrl)) });
    }
    const answers = await Promise.all(
      opened.map(async ({ draftId, checkout, secret }) => {
        const [answer] = await Promise.all([
          complete(checkout.id, secret),
          api.PATCH('/v1/draft-orders/{id}', { ...byId(draftId), body: { shipping_cost: 4990 } }),
        ]);
        return answer;
      }),
    );
    for (const answer of answers) {
      if (answer.response.status === 201) {
        const order = answer.data!.data as Order;
        expect(order.payments.reduce((sum, payment) => sum + payment.amount, 0)).toBe(order.total);
      } else {
        expect([answer.response.status, answer.error?.error.code]).toEqual([409, 'conflict']);
      }
    }
  });

  test('a draft completed meanwhile by the merchant answers 409 draft_order_completed and charges nothing', async () => {
    const { draftId, payUrl } = await sentDraft('raced@example.com');
    const { checkout, secret } = await openCheckout(payUrl);
    const merchant = await api.POST('/v1/draft-orders/{id}/complete', byId(draftId));
    expect(merchant.response.status).toBe(201);
    const late = await complete(checkout.id, secret);
    expect(late.response.status).toBe(409);
    expect(late.error).toMatchObject({ error: { code: 'draft_order_completed' } });
    const read = await shop.GET('/v1/checkouts/{id}', withSecret(checkout.id, secret));
    expect(read.data!.data).toMatchObject({ status: 'open', payment: null, order_id: null });
    expect(await app.deps.db.order.count({ where: { draftOrderId: draftId } })).toBe(1);
  });
});
