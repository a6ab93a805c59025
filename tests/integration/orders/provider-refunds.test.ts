import { beforeAll, describe, expect, test } from '@jest/globals';
import { idempotencyHeader, type CommerceClient, type components } from '@commerce-api/sdk';
import { jobs } from '../../../src/jobs/registry.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { byId } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

// Refunds of orders paid through the `test` provider (createOrderRefund); Stripe's are in checkout/stripe-refunds.test.ts.
const app = useApp();

let project: CreatedProject;
let api: CommerceClient;
let shop: CommerceClient;
let variantId: string;

beforeAll(async () => {
  project = await createProject(app, {
    currency: 'EUR',
    domain: 'shop.example.com',
    domain_verified: true,
    payment_provider: 'test',
    checkouts_per_ip_per_minute: 1_000_000,
  });
  api = app.client(project.keys.secret_test.token);
  shop = storefront(app, project.keys.publishable_test.token);
  const product = await createProduct(api, { title: 'Trail Runner 2', variants: [{ title: 'EU 42', price: 9900 }] });
  variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: variantId, location_id: project.project.default_location_id, available: 1000 },
  });
});

type Order = components['schemas']['Order'];

/**
 * An order of one unit (9900) paid at checkout with the test `token`, by a signed-in customer; with `credit`, that
 * much store credit is issued to them first and spent on the checkout (the rest paid with `token`).
 */
async function paidOrder(token = 'tok_test_success', credit = 0) {
  const session = await registerCustomer(shop);
  const client = signedIn(app, project.keys.publishable_test.token, session.access_token);
  if (credit > 0) await issueCredit(api, session.customer.id, credit);
  const started = await startCheckout(client, {
    currency: 'EUR',
    shipping_address: BERLIN,
    lines: [{ variant_id: variantId, quantity: 1 }],
  });
  const done = await client.POST('/v1/checkouts/{id}/complete', {
    params: { path: { id: started.checkout.id } },
    body: { payment: { token }, ...(credit > 0 && { store_credit: {} }) },
  });
  expect(done.response.status).toBe(201);
  return { order: done.data!.data as Order, customerId: session.customer.id };
}

const refund = (orderId: string, amount: number, headers: Record<string, string> = {}) =>
  api.POST('/v1/orders/{id}/refunds', { params: { path: { id: orderId }, header: headers }, body: { amount } });
const readOrder = async (id: string) => (await api.GET('/v1/orders/{id}', byId(id))).data!.data;
const totalSpent = async (id: string) => (await api.GET('/v1/customers/{id}', byId(id))).data!.data.total_spent;
const eventTypes = async (resource_id: string) =>
  (await api.GET('/v1/events', { params: { query: { resource_id } } })).data!.data.map((e) => e.type);
const creditEntries = (customerId: string, type: string) =>
  app.deps.db.storeCreditTransaction.findMany({ where: { customerId, type }, orderBy: { createdAt: 'asc' } });
const settleJobs = (refundId: string) =>
  app.deps.db.$queryRawUnsafe<Array<{ data: { v: 1; projectId: string; refundId: string }; start_after: Date }>>(
    `SELECT data, start_after FROM pgboss.job WHERE name = 'settle-refund' AND data->>'refundId' = $1`,
    refundId,
  );

describe('createOrderRefund through the test provider', () => {
  test('goes back through the provider that took the payment: succeeded with its reference, refund.succeeded recorded', async () => {
    const { order, customerId } = await paidOrder();
    const answer = await refund(order.id, 4000);
    expect(answer.response.status).toBe(201);
    const made = answer.data!.data;
    expect(made).toMatchObject({
      amount: 4000,
      status: 'succeeded',
      provider: 'test',
      provider_reference: `re_test_${made.id.slice('rfnd_'.length)}`,
      failure_reason: null,
    });
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'partially_refunded', total_refunded: 4000 });
    expect(await totalSpent(customerId)).toBe(order.total - 4000);
    expect(await eventTypes(made.id)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('a payment taken with tok_test_refund_fails: the refund fails, its amount no longer counts, refund.failed recorded', async () => {
    const { order, customerId } = await paidOrder('tok_test_refund_fails');
    expect(order.financial_status).toBe('paid');
    const answer = await refund(order.id, order.total);
    expect(answer.response.status).toBe(201);
    const failed = answer.data!.data;
    expect(failed).toMatchObject({
      status: 'failed',
      provider: 'test',
      failure_reason: 'The test payment was taken with tok_test_refund_fails, whose refunds always fail.',
    });
    // As before the refund: nothing was returned.
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'paid', total_refunded: 0 });
    expect(await totalSpent(customerId)).toBe(order.total);
    expect(await eventTypes(failed.id)).toEqual(['refund.failed', 'refund.created']);
    const listed = await api.GET('/v1/orders/{id}/refunds', byId(order.id));
    expect(listed.data!.data.map((r) => r.status)).toEqual(['failed']);
    // The whole amount can be asked again (a failed refund does not count against what is left).
    expect((await refund(order.id, order.total)).data!.data.status).toBe('failed');
  });

  test('with an Idempotency-Key the provider is not called in the request transaction: pending, then its job settles it once', async () => {
    const { order } = await paidOrder();
    const answer = await refund(order.id, 2500, idempotencyHeader());
    expect(answer.response.status).toBe(201);
    const pending = answer.data!.data;
    expect(pending).toMatchObject({ status: 'pending', provider: 'test', provider_reference: null });
    // Pending refunds count against what is left to refund.
    expect(await readOrder(order.id)).toMatchObject({ total_refunded: 2500 });
    const [job] = await settleJobs(pending.id);
    expect(job.data).toEqual({ v: 1, projectId: project.project.id, refundId: pending.id });
    // Due at once: the request left the provider's call to it.
    expect(job.start_after.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    await jobs['settle-refund'].handle(app.deps, job.data);
    await jobs['settle-refund'].handle(app.deps, job.data);
    const listed = await api.GET('/v1/orders/{id}/refunds', byId(order.id));
    expect(listed.data!.data).toEqual([
      { ...pending, status: 'succeeded', provider_reference: `re_test_${pending.id.slice('rfnd_'.length)}` },
    ]);
    expect(await eventTypes(pending.id)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('without a key the request settles the refund itself; its job stays as a backstop a minute later', async () => {
    const { order } = await paidOrder();
    const made = (await refund(order.id, 100)).data!.data;
    expect(made.status).toBe('succeeded');
    const [job] = await settleJobs(made.id);
    expect(job.start_after.getTime() - Date.now()).toBeGreaterThan(30_000);
    await jobs['settle-refund'].handle(app.deps, job.data);
    expect(await eventTypes(made.id)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('cancelling with refund: true refunds the rest through the provider and answers the settled order', async () => {
    const { order } = await paidOrder('tok_test_refund_fails');
    const cancelled = await api.POST('/v1/orders/{id}/cancel', {
      ...byId(order.id),
      body: { reason: 'customer', refund: true },
    });
    expect(cancelled.response.status).toBe(200);
    // The provider refused: the order is cancelled, its payment kept, and the failed refund is on record.
    expect(cancelled.data!.data).toMatchObject({ status: 'cancelled', financial_status: 'paid', total_refunded: 0 });
    const listed = await api.GET('/v1/orders/{id}/refunds', byId(order.id));
    expect(listed.data!.data).toEqual([expect.objectContaining({ amount: order.total, status: 'failed' })]);
  });

  test("a customer sees each refund's status under /v1/me/orders/{id}", async () => {
    const session = await registerCustomer(shop);
    const client = signedIn(app, project.keys.publishable_test.token, session.access_token);
    const started = await startCheckout(client, {
      currency: 'EUR',
      shipping_address: BERLIN,
      lines: [{ variant_id: variantId, quantity: 1 }],
    });
    const done = await client.POST('/v1/checkouts/{id}/complete', {
      params: { path: { id: started.checkout.id } },
      body: { payment: { token: 'tok_test_success' } },
    });
    const order = done.data!.data as Order;
    await refund(order.id, 1000);
    const mine = await client.GET('/v1/me/orders/{id}', byId(order.id));
    expect(mine.data!.data.refunds).toEqual([expect.objectContaining({ amount: 1000, status: 'succeeded' })]);
    expect(mine.data!.data.refunds[0]).not.toHaveProperty('provider_reference');
  });
});

describe('createOrderRefund of an order paid partly with store credit, through the test provider', () => {
  test('the store credit part goes back as store credit first; only the rest goes to the provider', async () => {
    const { order, customerId } = await paidOrder('tok_test_success', 3000);
    expect(order.payments.map((p) => [p.provider, p.amount])).toEqual([
      ['store_credit', 3000],
      ['test', 6900],
    ]);
    const first = (await refund(order.id, 5000)).data!.data;
    expect(first).toMatchObject({
      amount: 5000,
      store_credit_amount: 3000,
      status: 'succeeded',
      provider: 'test',
      provider_reference: `re_test_${first.id.slice('rfnd_'.length)}`,
    });
    expect(await balanceOf(api, customerId)).toBe(3000);
    // What is left of the store credit part is nothing: the next refund is all money.
    const second = (await refund(order.id, 4900)).data!.data;
    expect(second).toMatchObject({ amount: 4900, store_credit_amount: 0, status: 'succeeded', provider: 'test' });
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'refunded', total_refunded: 9900 });
    expect(await balanceOf(api, customerId)).toBe(3000);
    expect(await eventTypes(first.id)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('a refund all of which goes back to store credit asks no provider: succeeded at once, provider store_credit', async () => {
    const { order, customerId } = await paidOrder('tok_test_refund_fails', 3000);
    const made = (await refund(order.id, 2000)).data!.data;
    // tok_test_refund_fails would have failed it, had the provider been asked.
    expect(made).toMatchObject({
      amount: 2000,
      store_credit_amount: 2000,
      status: 'succeeded',
      provider: 'store_credit',
      provider_reference: null,
      failure_reason: null,
    });
    expect(await settleJobs(made.id)).toEqual([]);
    expect(await balanceOf(api, customerId)).toBe(2000);
    expect(await eventTypes(made.id)).toEqual(['refund.succeeded', 'refund.created']);
  });

  test('tok_test_refund_fails: the provider part fails (refund.failed), the store credit part stays given back exactly once', async () => {
    const { order, customerId } = await paidOrder('tok_test_refund_fails', 3000);
    const answer = await refund(order.id, order.total);
    expect(answer.response.status).toBe(201);
    const failed = answer.data!.data;
    expect(failed).toMatchObject({
      amount: 9900,
      store_credit_amount: 3000,
      status: 'failed',
      provider: 'test',
      failure_reason: 'The test payment was taken with tok_test_refund_fails, whose refunds always fail.',
    });
    // Only the provider's 6900 no longer counts; the 3000 returned as store credit does.
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'partially_refunded', total_refunded: 3000 });
    expect(await totalSpent(customerId)).toBe(order.total - 3000);
    expect(await balanceOf(api, customerId)).toBe(3000);
    expect(await eventTypes(failed.id)).toEqual(['refund.failed', 'refund.created']);
    // The backstop job and a refund of what is left change nothing of the store credit part.
    const [job] = await settleJobs(failed.id);
    await jobs['settle-refund'].handle(app.deps, job.data);
    const again = (await refund(order.id, 6900)).data!.data;
    expect(again).toMatchObject({ store_credit_amount: 0, status: 'failed', provider: 'test' });
    const returned = await creditEntries(customerId, 'refund');
    expect(returned.map((e) => [Number(e.amount), e.refundId])).toEqual([[3000, failed.id]]);
    expect(await balanceOf(api, customerId)).toBe(3000);
    expect(await readOrder(order.id)).toMatchObject({ financial_status: 'partially_refunded', total_refunded: 3000 });
    const issued = await api.GET('/v1/events', { params: { query: { resource_id: returned[0].id } } });
    expect(issued.data!.data.map((e) => e.type)).toEqual(['store_credit.issued']);
  });
});
