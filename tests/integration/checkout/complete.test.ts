import { beforeAll, describe, expect, test } from '@jest/globals';
import { idempotencyHeader, type CommerceClient, type components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret, type StartedCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import { useApp } from '../../setup/store.js';

// A connection for each of the 50 concurrent completions below: they meet at the variant's row lock, not in the pool.
const app = useApp({ poolSize: 50 });

/** A project paying through `provider`, with its secret client and storefront client. */
interface Shop {
  project: CreatedProject;
  api: CommerceClient;
  shop: CommerceClient;
}

async function newShop(provider: 'manual' | 'test'): Promise<Shop> {
  const project = await createProject(app, {
    currency: 'EUR',
    locale: 'de',
    payment_provider: provider,
    checkouts_per_ip_per_minute: 1_000_000,
    tax: { enabled: true, inclusive: true, rates: [{ country: 'DE', rate: 0.19 }] },
  });
  return {
    project,
    api: app.client(project.keys.secret_test.token),
    shop: storefront(app, project.keys.publishable_test.token),
  };
}

/** A product with one variant of `units` units in stock at the project's default location. */
async function stocked(shop: Shop, units: number, price = 9900): Promise<string> {
  const product = await createProduct(shop.api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price }] });
  const variantId = product.variants[0].id;
  const level = await shop.api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: shop.project.project.default_location_id, available: units },
  });
  expect(level.response.status).toBe(200);
  return variantId;
}

/** A checkout ready to complete: e-mail, address, `quantity` units of the variant. */
const ready = (client: CommerceClient, variantId: string, quantity = 1, email = 'jane@example.com') =>
  startCheckout(client, {
    currency: 'EUR',
    email,
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity }],
  });

const complete = (
  client: CommerceClient,
  started: StartedCheckout,
  token?: string,
  headers: Record<string, string> = {},
) =>
  client.POST('/v1/checkouts/{id}/complete', {
    params: { path: { id: started.checkout.id }, header: { 'X-Checkout-Secret': started.secret, ...headers } },
    body: token === undefined ? {} : { payment: { token } },
  });

type Order = components['schemas']['Order'];
type Checkout = components['schemas']['Checkout'];
/** The order of a 201 answer, the checkout of a 202 (completeCheckout answers either). */
const orderIn = (answer: { data?: { data: Order | Checkout } }) => answer.data!.data as Order;
const checkoutIn = (answer: { data?: { data: Order | Checkout } }) => answer.data!.data as Checkout;

const quantityOf = async (shop: Shop, variantId: string) =>
  (await shop.api.GET('/v1/variants/{id}', { params: { path: { id: variantId } } })).data!.data.inventory_quantity;
const orderCount = (shop: Shop) => app.deps.db.order.count({ where: { projectId: shop.project.project.id } });
const holds = (checkoutId: string) => app.deps.db.inventoryReservation.count({ where: { checkoutId } });

describe('completeCheckout with the manual provider', () => {
  test('creates the order as draft completion does: number from 1001, copies, stock deducted, pending, payment recorded, e-mail in the outbox', async () => {
    const shop = await newShop('manual');
    const variantId = await stocked(shop, 5);
    const started = await ready(shop.shop, variantId, 2);
    const answer = await complete(shop.shop, started);
    expect(answer.response.status).toBe(201);
    const order = orderIn(answer);
    expect(order).toMatchObject({
      order_number: 1001,
      financial_status: 'pending',
      paid_at: null,
      email: 'jane@example.com',
      currency: 'EUR',
      checkout_id: started.checkout.id,
      draft_order_id: null,
      subtotal: 19800,
      tax: 3161,
      total: 19800,
      payment_terms: 'due_on_receipt',
      line_items: [
        {
          variant_id: variantId,
          title: 'Trail Runner 2',
          variant_title: 'EU 42',
          quantity: 2,
          unit_price: 9900,
          total: 19800,
        },
      ],
      shipping_address: { line1: 'Friedrichstrasse 68', country: 'DE' },
    });
    expect(order.payments).toEqual([
      {
        provider: 'manual',
        status: 'pending',
        amount: 19800,
        currency: 'EUR',
        reference: null,
        created_at: order.created_at,
      },
    ]);
    expect(await quantityOf(shop, variantId)).toBe(3);
    const checkout = (await shop.shop.GET('/v1/checkouts/{id}', withSecret(started.checkout.id, started.secret))).data!
      .data;
    expect(checkout).toMatchObject({ status: 'completed', order_id: order.id });
    const events = (await shop.api.GET('/v1/events', { params: { query: { resource_id: order.id } } })).data!.data;
    expect(events.map((e) => e.type)).toEqual(['order.created']);
    const outbox = (
      await app.platform.GET('/platform/v1/projects/{id}/outbox', {
        params: { path: { id: shop.project.project.id }, query: { to: 'jane@example.com' } },
      })
    ).data!.data;
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({
      template: 'order_confirmation',
      locale: 'de',
      subject: `Ihre Bestellung #1001 bei ${shop.project.project.name}`,
    });
    // Paid later as any order.
    expect((await shop.api.POST('/v1/orders/{id}/pay', { params: { path: { id: order.id } } })).response.status).toBe(
      200,
    );
  });

  test('needs an e-mail and, where the zone has rates, a chosen rate (400 naming it)', async () => {
    const shop = await newShop('manual');
    const variantId = await stocked(shop, 5);
    const noEmail = await startCheckout(shop.shop, {
      currency: 'EUR',
      shipping_address: BERLIN,
      lines: [{ variant_id: variantId, quantity: 1 }],
    });
    const refused = await complete(shop.shop, noEmail);
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error.field).toBe('email');
    const zone = await createZone(shop.api, { countries: ['DE'] });
    const rate = await createRate(shop.api, zone.id, { currency: 'EUR', price: 490 });
    const started = await ready(shop.shop, variantId);
    const noRate = await complete(shop.shop, started);
    expect(noRate.error!.error).toMatchObject({ code: 'invalid_request', field: 'shipping_rate_id' });
    await shop.shop.PATCH('/v1/checkouts/{id}', {
      ...withSecret(started.checkout.id, started.secret),
      body: { shipping_rate_id: rate.id },
    });
    const done = await complete(shop.shop, started);
    expect(done.data!.data).toMatchObject({ shipping_cost: 490, total: 9900 + 490 });
    expect(await orderCount(shop)).toBe(1);
  });
});

describe('completeCheckout racing a new shipping address', () => {
  test('no order without a rate where the zone has rates: the rate or a 409 asking to complete again', async () => {
    const shop = await newShop('test');
    const variantId = await stocked(shop, 1_000);
    const zone = await createZone(shop.api, { countries: ['DE'] });
    const rate = await createRate(shop.api, zone.id, { currency: 'EUR', price: 490 });
    const outcomes: Array<[number, number | string | undefined]> = [];
    for (let round = 0; round < 3; round++) {
      const started: StartedCheckout[] = [];
      for (let i = 0; i < 12; i++) {
        const checkout = await ready(shop.shop, variantId, 1, `jane${round}.${i}@example.com`);
        const chosen = await shop.shop.PATCH('/v1/checkouts/{id}', {
          ...withSecret(checkout.checkout.id, checkout.secret),
          body: { shipping_rate_id: rate.id },
        });
        expect(chosen.data!.data.shipping_cost).toBe(490);
        started.push(checkout);
      }
      // Each completion races a PATCH that moves the address, which clears the chosen rate.
      const answers = await Promise.all(
        started.map(async (checkout) => {
          const [completed] = await Promise.all([
            complete(shop.shop, checkout, 'tok_test_success'),
            shop.shop.PATCH('/v1/checkouts/{id}', {
              ...withSecret(checkout.checkout.id, checkout.secret),
              body: { shipping_address: { ...BERLIN, line1: 'Unter den Linden 1' } },
            }),
          ]);
          return completed;
        }),
      );
      for (const answer of answers) {
        const status = answer.response.status;
        outcomes.push([status, status === 201 ? orderIn(answer).shipping_cost : answer.error?.error.code]);
      }
    }
    // An order carries the zone's rate; otherwise the answer is the 400 asking for a rate or the 409 of a change.
    const wrong = outcomes.filter(
      ([status, what]) =>
        !(status === 201 && what === 490) &&
        !(status === 400 && what === 'invalid_request') &&
        !(status === 409 && what === 'conflict'),
    );
    expect(wrong).toEqual([]);
  }, 120_000);
});

describe('completeCheckout with the test provider', () => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await newShop('test');
  });

  test("tok_test_success pays: financial_status paid, order.created and order.paid, the customer's order_count and total_spent", async () => {
    const variantId = await stocked(shop, 5);
    const session = await registerCustomer(shop.shop);
    const customerShop = signedIn(app, shop.project.keys.publishable_test.token, session.access_token);
    const { checkout } = await startCheckout(customerShop, {
      currency: 'EUR',
      shipping_address: BERLIN,
      lines: [{ variant_id: variantId, quantity: 1 }],
    });
    const answer = await customerShop.POST('/v1/checkouts/{id}/complete', {
      params: { path: { id: checkout.id }, header: {} },
      body: { payment: { token: 'tok_test_success' } },
    });
    expect(answer.response.status).toBe(201);
    const order = orderIn(answer);
    expect(order).toMatchObject({
      financial_status: 'paid',
      customer_id: session.customer.id,
      email: session.customer.email,
    });
    expect(order.paid_at).not.toBeNull();
    expect(order.payments).toEqual([
      expect.objectContaining({
        provider: 'test',
        status: 'succeeded',
        amount: 9900,
        reference: `pay_test_${checkout.id.slice(4)}`,
      }),
    ]);
    const events = (await shop.api.GET('/v1/events', { params: { query: { resource_id: order.id } } })).data!.data;
    expect(events.map((e) => e.type).sort()).toEqual(['order.created', 'order.paid', 'order.updated']);
    const customer = (await shop.api.GET('/v1/customers/{id}', { params: { path: { id: session.customer.id } } })).data!
      .data;
    expect(customer).toMatchObject({ order_count: 1, total_spent: 9900 });
  });

  test('tok_test_decline answers 402 payment_declined and writes nothing: no order, stock and holds untouched, checkout open', async () => {
    const variantId = await stocked(shop, 2);
    const started = await ready(shop.shop, variantId);
    const before = await orderCount(shop);
    const { error, response } = await complete(shop.shop, started, 'tok_test_decline');
    expect(response.status).toBe(402);
    expect(error!.error).toMatchObject({ code: 'payment_declined', field: 'payment.token' });
    expect(await orderCount(shop)).toBe(before);
    expect(await quantityOf(shop, variantId)).toBe(2);
    expect(await holds(started.checkout.id)).toBe(0);
    const checkout = (await shop.shop.GET('/v1/checkouts/{id}', withSecret(started.checkout.id, started.secret))).data!
      .data;
    expect(checkout).toMatchObject({ status: 'open', payment: null, order_id: null });
    const unknown = await complete(shop.shop, started, 'tok_nope');
    expect(unknown.response.status).toBe(400);
    expect(unknown.error!.error.field).toBe('payment.token');
  });

  test('tok_test_requires_action answers 202 and holds the units (others cannot take them, the checkout cannot change); the next call pays once', async () => {
    const variantId = await stocked(shop, 2);
    const started = await ready(shop.shop, variantId, 2);
    const first = await complete(shop.shop, started, 'tok_test_requires_action');
    expect(first.response.status).toBe(202);
    const pending = checkoutIn(first);
    expect(pending).toMatchObject({ status: 'requires_action', order_id: null });
    expect(pending.payment).toMatchObject({
      provider: 'test',
      status: 'requires_action',
      amount: 19800,
      next_action: { type: 'confirm' },
    });
    const window = Date.parse(pending.payment!.reserved_until) - Date.now();
    expect(window).toBeGreaterThan(14 * 60_000);
    expect(window).toBeLessThanOrEqual(15 * 60_000);
    expect(await holds(started.checkout.id)).toBe(1);
    // Another shopper cannot take the held units.
    const other = await ready(shop.shop, variantId, 1);
    const short = await complete(shop.shop, other, 'tok_test_success');
    expect(short.response.status).toBe(409);
    expect(short.error!.error).toMatchObject({ code: 'out_of_stock', field: variantId });
    const change = await shop.shop.PATCH('/v1/checkouts/{id}', {
      ...withSecret(started.checkout.id, started.secret),
      body: { note: 'x' },
    });
    expect(change.response.status).toBe(409);

    const second = await complete(shop.shop, started);
    expect(second.response.status).toBe(201);
    expect(second.data!.data).toMatchObject({ financial_status: 'paid', checkout_id: started.checkout.id });
    expect(await holds(started.checkout.id)).toBe(0);
    expect(await quantityOf(shop, variantId)).toBe(0);
    // A third call (a double click) answers the same order; nothing more is made or charged.
    const third = await complete(shop.shop, started);
    expect(third.response.status).toBe(201);
    expect(third.data!.data.id).toBe(second.data!.data.id);
    expect(await app.deps.db.order.count({ where: { checkoutId: started.checkout.id } })).toBe(1);
  });

  test('a payment step whose hold lapsed leaves the checkout open with its units free again', async () => {
    const variantId = await stocked(shop, 1);
    const started = await ready(shop.shop, variantId);
    expect((await complete(shop.shop, started, 'tok_test_requires_action')).response.status).toBe(202);
    const past = new Date(Date.now() - 1000);
    await app.deps.db.checkout.update({ where: { id: started.checkout.id }, data: { reservedUntil: past } });
    await app.deps.db.inventoryReservation.updateMany({
      where: { checkoutId: started.checkout.id },
      data: { expiresAt: past },
    });
    const checkout = (await shop.shop.GET('/v1/checkouts/{id}', withSecret(started.checkout.id, started.secret))).data!
      .data;
    expect(checkout).toMatchObject({ status: 'open', payment: null });
    const other = await ready(shop.shop, variantId);
    expect((await complete(shop.shop, other, 'tok_test_success')).response.status).toBe(201);
    const late = await complete(shop.shop, started, 'tok_test_success');
    expect(late.response.status).toBe(409);
    expect(late.error!.error.code).toBe('out_of_stock');
    // Its lapsed rows hold nothing (the purge job deletes them).
    const live = { checkoutId: started.checkout.id, expiresAt: { gt: new Date() } };
    expect(await app.deps.db.inventoryReservation.count({ where: live })).toBe(0);
  });

  test('Idempotency-Key replays the first answer with Idempotent-Replayed', async () => {
    const variantId = await stocked(shop, 3);
    const started = await ready(shop.shop, variantId);
    const key = idempotencyHeader();
    const first = await complete(shop.shop, started, 'tok_test_success', key);
    const again = await complete(shop.shop, started, 'tok_test_success', key);
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.data!.data.id).toBe(first.data!.data.id);
    expect(await quantityOf(shop, variantId)).toBe(2);
  });

  test("a replay needs the checkout's secret: the same key, path and body without it answer 404, not the order", async () => {
    const variantId = await stocked(shop, 3);
    const started = await ready(shop.shop, variantId);
    const key = idempotencyHeader();
    const first = await complete(shop.shop, started, 'tok_test_success', key);
    expect(first.response.status).toBe(201);
    // Another shopper of the store (the same public key) who learnt the checkout id and the key, not the secret.
    for (const secret of [undefined, 'chks_not-the-secret']) {
      const stranger = await shop.shop.POST('/v1/checkouts/{id}/complete', {
        params: {
          path: { id: started.checkout.id },
          header: { ...key, ...(secret === undefined ? {} : { 'X-Checkout-Secret': secret }) },
        },
        body: { payment: { token: 'tok_test_success' } },
      });
      expect(stranger.response.status).toBe(404);
      expect(stranger.response.headers.get('Idempotent-Replayed')).toBeNull();
      expect(stranger.error!.error).toMatchObject({ code: 'not_found', message: 'Checkout not found.' });
    }
    // The shopper holding the secret still gets the stored answer.
    const again = await complete(shop.shop, started, 'tok_test_success', key);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(orderIn(again).id).toBe(orderIn(first).id);
  });

  test("adding lines with a key: a replay without the checkout's secret answers 404, not the checkout", async () => {
    const variantId = await stocked(shop, 3);
    const started = await ready(shop.shop, variantId);
    const key = idempotencyHeader();
    const add = (secret?: string) =>
      shop.shop.POST('/v1/checkouts/{id}/lines', {
        params: {
          path: { id: started.checkout.id },
          header: { ...key, ...(secret === undefined ? {} : { 'X-Checkout-Secret': secret }) },
        },
        body: { lines: [{ variant_id: variantId, quantity: 1 }] },
      });
    expect((await add(started.secret)).response.status).toBe(201);
    const stranger = await add();
    expect(stranger.response.status).toBe(404);
    expect(stranger.response.headers.get('Idempotent-Replayed')).toBeNull();
    expect((await add(started.secret)).response.headers.get('Idempotent-Replayed')).toBe('true');
  });

  test('50 concurrent completions for the last 5 units: exactly 5 orders, 45 answer 409 out_of_stock, nothing held or charged for them', async () => {
    const variantId = await stocked(shop, 5);
    const checkouts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => ready(shop.shop, variantId, 1, `buyer${i}@example.com`)),
    );
    const before = await orderCount(shop);
    const answers = await Promise.all(checkouts.map((started) => complete(shop.shop, started, 'tok_test_success')));
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(45);
    for (const answer of answers.filter((a) => a.response.status === 409)) {
      expect(answer.error!.error).toMatchObject({ code: 'out_of_stock', field: variantId });
    }
    expect(await orderCount(shop)).toBe(before + 5);
    expect(await quantityOf(shop, variantId)).toBe(0);
    const ids = checkouts.map((c) => c.checkout.id);
    expect(await app.deps.db.inventoryReservation.count({ where: { checkoutId: { in: ids } } })).toBe(0);
    const paid = await app.deps.db.checkout.count({ where: { id: { in: ids }, paymentStatus: 'succeeded' } });
    expect(paid).toBe(5);
  });
});
