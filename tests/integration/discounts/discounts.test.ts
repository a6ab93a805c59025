import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AppDeps } from '../../../src/app-deps.js';
import { deliverWakeUps } from '../../../src/modules/webhooks/deliver.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { issueCredit } from '../../factories/store-credit.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ app: { config: { allowPrivateNetworkTargets: true } } });
const { app, api } = store;

const createCode = async (body: Record<string, unknown>) =>
  store.call('POST', '/v1/discounts', { title: 'A code', type: 'percentage', value: 10, ...body });

describe('createDiscount', () => {
  test('creates a code with every condition unset by default, times_used 0, and records discount.created', async () => {
    const answer = await api.POST('/v1/discounts', {
      body: { code: 'Welcome10', title: '10 % off', type: 'percentage', value: 10, conditions: { min_subtotal: 5000 } },
    });
    expect(answer.response.status).toBe(201);
    expect(answer.data!.data).toMatchObject({
      code: 'Welcome10',
      status: 'active',
      target: 'order',
      combinable: false,
      times_used: 0,
      usage_limit: null,
      conditions: {
        min_subtotal: 5000,
        product_ids: [],
        collection_ids: [],
        product_types: [],
        customer_group_ids: [],
        customer_ids: [],
        currency: null,
      },
    });
    const events = await app.deps.db.storeEvent.findMany({ where: { resourceId: answer.data!.data.id } });
    expect(events.map((e) => e.type)).toEqual(['discount.created']);
  });

  test('a code is unique in the project whatever its case: 409 conflict on code', async () => {
    expect((await createCode({ code: 'SPRING' })).status).toBe(201);
    const again = await createCode({ code: 'spring' });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: { code: 'conflict', message: 'Another discount already has this code.', field: 'code' },
    });
  });

  test.each([
    [{ code: 'P0', type: 'percentage', value: 0 }, 'value'],
    [{ code: 'P101', type: 'percentage', value: 101 }, 'value'],
    [{ code: 'F0', type: 'fixed_amount', value: 0 }, 'value'],
    [{ code: 'FS', type: 'free_shipping', value: 5 }, 'value'],
    [{ code: 'WIN', ends_at: '2027-01-01T00:00:00Z', starts_at: '2027-02-01T00:00:00Z' }, 'ends_at'],
  ])('400 on the field that does not fit the kind: %j', async (body, field) => {
    const answer = await createCode(body);
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { field: string } }).error.field).toBe(field);
  });
});

describe('listDiscounts', () => {
  test('finds a code case-insensitively', async () => {
    await createCode({ code: 'FindMe' });
    const page = await api.GET('/v1/discounts', { params: { query: { code: 'FINDME' } } });
    expect(page.data!.data.map((d) => d.code)).toEqual(['FindMe']);
  });
});

describe('updateDiscount and deleteDiscount', () => {
  test('an update records discount.updated with the changed fields; an unchanged one records nothing', async () => {
    const created = (await (await createCode({ code: 'UPD' })).json()) as { data: { id: string } };
    const id = created.data.id;
    const changed = await api.PATCH('/v1/discounts/{id}', { params: { path: { id } }, body: { usage_limit: 5 } });
    expect(changed.data!.data.usage_limit).toBe(5);
    await api.PATCH('/v1/discounts/{id}', { params: { path: { id } }, body: { usage_limit: 5 } });
    const events = await app.deps.db.storeEvent.findMany({ where: { resourceId: id }, orderBy: { createdAt: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['discount.created', 'discount.updated']);
    expect(events[1].metadata).toEqual({ changes: { usage_limit: { from: null, to: 5 } } });
  });

  test('a code never used is deleted (discount.deleted, then 404)', async () => {
    const created = (await (await createCode({ code: 'GONE' })).json()) as { data: { id: string } };
    const id = created.data.id;
    expect((await api.DELETE('/v1/discounts/{id}', { params: { path: { id } } })).response.status).toBe(204);
    expect((await api.GET('/v1/discounts/{id}', { params: { path: { id } } })).response.status).toBe(404);
    const events = await app.deps.db.storeEvent.findMany({ where: { resourceId: id } });
    expect(events.map((e) => e.type).sort()).toEqual(['discount.created', 'discount.deleted']);
  });

  test('a used code is archived instead of deleted', async () => {
    const created = (await (await createCode({ code: 'USED' })).json()) as { data: { id: string } };
    const id = created.data.id;
    await app.deps.db.discountRedemption.create({
      data: {
        id: 'dred_test',
        projectId: store.project.id,
        discountId: id,
        orderId: 'ord_x',
        customerKey: 'a@b.c',
        amount: 1n,
      },
    });
    expect((await api.DELETE('/v1/discounts/{id}', { params: { path: { id } } })).response.status).toBe(204);
    const after = await api.GET('/v1/discounts/{id}', { params: { path: { id } } });
    expect(after.data!.data.status).toBe('archived');
  });

  test("another project's discount is 404 and a promotion id is not a discount", async () => {
    const promotion = await api.POST('/v1/promotions', { body: { title: 'P', type: 'percentage', value: 5 } });
    const answer = await api.GET('/v1/discounts/{id}', { params: { path: { id: promotion.data!.data.id } } });
    expect(answer.response.status).toBe(404);
  });
});

describe('createPromotion', () => {
  test('buy_x_get_y needs its deal and tiered its tiers (400)', async () => {
    const noDeal = await store.call('POST', '/v1/promotions', { title: 'B', type: 'buy_x_get_y' });
    expect(noDeal.status).toBe(400);
    expect(((await noDeal.json()) as { error: { field: string } }).error.field).toBe('buy_x_get_y');
    const noTiers = await store.call('POST', '/v1/promotions', { title: 'T', type: 'tiered' });
    expect(((await noTiers.json()) as { error: { field: string } }).error.field).toBe('tiers');
  });
});

describe('discount and promotion webhooks', () => {
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

  test('a subscription to discount.created, promotion.updated and store_credit.used receives each, as the API showed it', async () => {
    await createWebhook(api, receiver.url('/discounts'), {
      events: ['discount.created', 'promotion.updated', 'store_credit.used'],
    });
    const code = await api.POST('/v1/discounts', { body: { code: 'HOOK', title: 'Hook', type: 'free_shipping' } });
    const promotion = await api.POST('/v1/promotions', {
      body: { title: 'Tiers', type: 'tiered', tiers: [{ min_subtotal: 1000, type: 'percentage', value: 5 }] },
    });
    const updated = await api.PATCH('/v1/promotions/{id}', {
      params: { path: { id: promotion.data!.data.id } },
      body: { priority: 7 },
    });
    const customer = await createCustomer(api);
    await issueCredit(api, customer.id, 3000);
    const used = await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      params: { path: { id: customer.id } },
      body: { amount: -1000, reason: 'Correction' },
    });
    const pending = await app.deps.db.webhookDelivery.findMany({ where: { status: 'pending' }, select: { id: true } });
    await deliverWakeUps(
      deps,
      pending.map((d) => ({ v: 1 as const, deliveryId: d.id })),
    );
    const got = receiver.on('/discounts').map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    expect(got.map((g) => g.type).sort()).toEqual(['discount.created', 'promotion.updated', 'store_credit.used']);
    expect(got.find((g) => g.type === 'discount.created')!.data).toEqual(code.data!.data);
    expect(got.find((g) => g.type === 'promotion.updated')!.data).toEqual(updated.data!.data);
    expect(got.find((g) => g.type === 'store_credit.used')!.data).toMatchObject({ amount: -1000 });
    expect(used.response.status).toBe(201);
  });
});
