/**
 * The event catalogue is honest (openapi.yaml, `EventType`): every type a webhook subscription accepts is emitted by
 * at least one operation, and a type no operation emits yet is refused at subscription. EMITTERS is the table: each
 * step names the request(s) that emit its types, is run against the real app, and must record each of its types;
 * subscriptions to every accepted type must then receive each of them at a local HTTPS receiver.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { JobQueue } from '../../../src/jobs/queue.js';
import { jobs } from '../../../src/jobs/registry.js';
import { openapiJson } from '../../../src/generated/document.js';
import { NOT_YET_EMITTED } from '../../../src/modules/store-events/index.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createOrderedPurchaseOrder } from '../../factories/purchase-order.factory.js';
import { issueCredit } from '../../factories/store-credit.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { byId } from '../../setup/requests.js';
import { stopBeforeClosing, useStore } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';

type EventType = components['schemas']['EventType'];

const CATALOGUE: EventType[] = JSON.parse(openapiJson).components.schemas.EventType.enum;
const ACCEPTED = CATALOGUE.filter((type) => !(type in NOT_YET_EMITTED));

const store = useStore({
  project: { contact_email: 'owner@store.example.com' },
  app: { config: { allowPrivateNetworkTargets: true } },
});
const { app, api } = store;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let worker: JobQueue;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  worker = await JobQueue.start(sessionUrlOf(app), app.deps.log, {
    work: true,
    deps: { ...app.deps, outbound: agent },
  });
  stopBeforeClosing(app, () => worker.stop());
});
afterAll(async () => {
  await receiver.close();
  await agent.close();
});

/** What the steps share: ids made by earlier steps. */
type State = Record<string, string>;
interface Step {
  emits: EventType[];
  requests: string;
  run: (api: CommerceClient, state: State) => Promise<void>;
}

const ok = async <T extends { response: Response; error?: unknown }>(call: Promise<T>): Promise<T> => {
  const answer = await call;
  expect([answer.response.status, answer.error]).toEqual([expect.any(Number), undefined]);
  return answer;
};
const location = () => store.project.default_location_id;

async function completedOrder(api: CommerceClient, variantId: string, quantity: number): Promise<string> {
  const draft = await createDraftOrder(api, { currency: store.project.currency });
  await addItems(api, draft.id, [{ variant_id: variantId, quantity }]);
  const completed = await ok(api.POST('/v1/draft-orders/{id}/complete', byId(draft.id)));
  return completed.data!.data.id;
}

// The table: type -> the request(s) that emit it, in an order where each step can use what earlier ones made.
const EMITTERS: Step[] = [
  {
    emits: ['location.created', 'location.updated', 'location.deleted'],
    requests: 'POST /v1/locations, PATCH /v1/locations/{id}, DELETE /v1/locations/{id}',
    run: async (api) => {
      const created = await ok(api.POST('/v1/locations', { body: { name: 'Back room' } }));
      await ok(api.PATCH('/v1/locations/{id}', { ...byId(created.data!.data.id), body: { name: 'Store room' } }));
      await ok(api.DELETE('/v1/locations/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: ['product.created', 'product.updated'],
    requests: 'POST /v1/products, PATCH /v1/products/{id}; PUT /v1/inventory-levels (no event above the threshold)',
    run: async (api, state) => {
      const product = await createProduct(api, {
        title: 'Catalogue Runner',
        variants: [{ title: 'EU 42', price: 2500, low_stock_threshold: 5 }],
      });
      await ok(api.PATCH('/v1/products/{id}', { ...byId(product.id), body: { title: 'Catalogue Runner 2' } }));
      await ok(
        api.PUT('/v1/inventory-levels', {
          body: { variant_id: product.variants[0].id, location_id: location(), available: 20 },
        }),
      );
      state.product = product.id;
      state.variant = product.variants[0].id;
    },
  },
  {
    emits: ['product.deleted'],
    requests: 'DELETE /v1/products/{id}',
    run: async (api) => {
      const product = await createProduct(api);
      await ok(api.DELETE('/v1/products/{id}', byId(product.id)));
    },
  },
  {
    emits: ['collection.created', 'collection.updated', 'collection.deleted'],
    requests: 'POST /v1/collections, PATCH /v1/collections/{id}, DELETE /v1/collections/{id}',
    run: async (api) => {
      const created = await ok(api.POST('/v1/collections', { body: { title: 'Runners' } }));
      await ok(api.PATCH('/v1/collections/{id}', { ...byId(created.data!.data.id), body: { title: 'Trail runners' } }));
      await ok(api.DELETE('/v1/collections/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: ['customer.created', 'customer.updated', 'customer.deleted'],
    requests: 'POST /v1/customers, PATCH /v1/customers/{id}, DELETE /v1/customers/{id}',
    run: async (api) => {
      const customer = await createCustomer(api);
      await ok(api.PATCH('/v1/customers/{id}', { ...byId(customer.id), body: { first_name: 'Ada' } }));
      await ok(api.DELETE('/v1/customers/{id}', byId(customer.id)));
    },
  },
  {
    emits: ['company.created', 'company.updated', 'company.deleted'],
    requests: 'POST /v1/companies, PATCH /v1/companies/{id}, DELETE /v1/companies/{id}',
    run: async (api) => {
      const created = await ok(api.POST('/v1/companies', { body: { name: 'Acme Shoes' } }));
      await ok(api.PATCH('/v1/companies/{id}', { ...byId(created.data!.data.id), body: { note: 'Ships Tuesdays' } }));
      await ok(api.DELETE('/v1/companies/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: ['price_list.created', 'price_list.updated', 'price_list.deleted'],
    requests: 'POST /v1/price-lists, PATCH /v1/price-lists/{id}, DELETE /v1/price-lists/{id}',
    run: async (api) => {
      const body = { slug: 'catalogue-list', name: 'Wholesale', currency: 'USD' };
      const created = await ok(api.POST('/v1/price-lists', { body }));
      await ok(api.PATCH('/v1/price-lists/{id}', { ...byId(created.data!.data.id), body: { name: 'Trade' } }));
      await ok(api.DELETE('/v1/price-lists/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: ['shipping.zone.created', 'shipping.zone.updated', 'shipping.zone.deleted'],
    requests: 'POST /v1/shipping/zones, PATCH /v1/shipping/zones/{id}, DELETE /v1/shipping/zones/{id}',
    run: async (api) => {
      const created = await ok(
        api.POST('/v1/shipping/zones', { body: { name: 'North America', countries: ['US', 'CA'] } }),
      );
      await ok(api.PATCH('/v1/shipping/zones/{id}', { ...byId(created.data!.data.id), body: { name: 'NA' } }));
      await ok(api.DELETE('/v1/shipping/zones/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: [
      'draft_order.created',
      'draft_order.updated',
      'inventory.reserved',
      'inventory.released',
      'draft_order.deleted',
    ],
    requests:
      'POST /v1/draft-orders, POST /v1/draft-orders/{id}/items, POST /v1/draft-orders/{id}/send (reserves), DELETE /v1/draft-orders/{id} (releases)',
    run: async (api, state) => {
      const draft = await createDraftOrder(api, { currency: store.project.currency });
      await addItems(api, draft.id, [{ variant_id: state.variant, quantity: 1 }]);
      await ok(api.POST('/v1/draft-orders/{id}/send', { ...byId(draft.id), body: {} }));
      await ok(api.DELETE('/v1/draft-orders/{id}', byId(draft.id)));
    },
  },
  {
    emits: ['draft_order.completed', 'order.created', 'inventory.low'],
    requests: 'POST /v1/draft-orders/{id}/complete (16 of 20 units: below the threshold of 5)',
    run: async (api, state) => {
      state.order = await completedOrder(api, state.variant, 16);
    },
  },
  {
    emits: ['order.paid', 'order.updated'],
    requests: 'POST /v1/orders/{id}/pay',
    run: async (api, state) => {
      await ok(api.POST('/v1/orders/{id}/pay', byId(state.order)));
    },
  },
  {
    emits: ['fulfillment.created', 'order.partially_fulfilled', 'fulfillment.cancelled', 'order.updated'],
    requests: 'POST /v1/orders/{id}/fulfillments, POST /v1/orders/{id}/fulfillments/{fulfillment_id}/cancel',
    run: async (api, state) => {
      const body = { location_id: location(), line_items: [{ line_item_index: 0, quantity: 1 }] };
      const created = await ok(api.POST('/v1/orders/{id}/fulfillments', { ...byId(state.order), body }));
      const path = { id: state.order, fulfillment_id: created.data!.data.id };
      await ok(api.POST('/v1/orders/{id}/fulfillments/{fulfillment_id}/cancel', { params: { path } }));
    },
  },
  {
    emits: ['order.fulfilled', 'order.updated'],
    requests: 'POST /v1/orders/{id}/fulfillments (every unit)',
    run: async (api, state) => {
      const body = { location_id: location(), line_items: [{ line_item_index: 0, quantity: 16 }] };
      await ok(api.POST('/v1/orders/{id}/fulfillments', { ...byId(state.order), body }));
    },
  },
  {
    emits: ['refund.created', 'order.refunded', 'order.updated'],
    requests: 'POST /v1/orders/{id}/refunds',
    run: async (api, state) => {
      await ok(api.POST('/v1/orders/{id}/refunds', { ...byId(state.order), body: { amount: 100, reason: 'Late' } }));
    },
  },
  {
    emits: ['order.cancelled', 'order.updated'],
    requests: 'POST /v1/orders/{id}/cancel',
    run: async (api, state) => {
      const order = await completedOrder(api, state.variant, 1);
      await ok(api.POST('/v1/orders/{id}/cancel', { ...byId(order), body: { reason: 'customer' } }));
    },
  },
  {
    emits: ['purchase_order.created', 'purchase_order.updated', 'purchase_order.received', 'purchase_order.cancelled'],
    requests:
      'POST /v1/purchase-orders, POST /v1/purchase-orders/{id}/order, POST /v1/purchase-orders/{id}/receive, POST /v1/purchase-orders/{id}/cancel',
    run: async (api, state) => {
      const order = await createOrderedPurchaseOrder(api, location(), [[state.variant, 10]]);
      const body = { lines: [{ line_id: order.lines[0].id, quantity: 4 }] };
      await ok(api.POST('/v1/purchase-orders/{id}/receive', { ...byId(order.id), body }));
      await ok(api.POST('/v1/purchase-orders/{id}/cancel', byId(order.id)));
    },
  },
  {
    emits: ['navigation.created', 'navigation.updated', 'navigation.deleted'],
    requests: 'POST /v1/navigation, PATCH /v1/navigation/{id}, DELETE /v1/navigation/{id}',
    run: async (api, state) => {
      const items = [{ title: 'Runners', type: 'product' as const, target: state.product }];
      const created = await ok(api.POST('/v1/navigation', { body: { title: 'Main menu', items } }));
      await ok(api.PATCH('/v1/navigation/{id}', { ...byId(created.data!.data.id), body: { title: 'Main' } }));
      await ok(api.DELETE('/v1/navigation/{id}', byId(created.data!.data.id)));
    },
  },
  {
    emits: ['store_credit.issued', 'store_credit.used', 'store_credit.expired'],
    requests:
      'POST /v1/customers/{id}/store-credit/credits, POST /v1/customers/{id}/store-credit/adjustments (negative), the expire-store-credit job',
    run: async (api) => {
      const customer = await createCustomer(api);
      const expiresAt = new Date(Date.now() + 1_500).toISOString();
      await issueCredit(api, customer.id, 3000, { expires_at: expiresAt });
      await ok(
        api.POST('/v1/customers/{id}/store-credit/adjustments', {
          ...byId(customer.id),
          body: { amount: -1000, reason: 'Correction' },
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 100));
      await jobs['expire-store-credit'].handle(app.deps, { v: 1 });
    },
  },
  {
    emits: ['webhook_subscription.paused'],
    requests: 'a delivery answered 410 Gone by its receiver (POST /v1/customers to a subscription of customer.created)',
    run: async (api) => {
      receiver.answer('/gone', { status: 410, body: 'gone' });
      const gone = await createWebhook(api, receiver.url('/gone'), { events: ['customer.created'] });
      await createCustomer(api);
      await receiver.waitFor('/gone', 1);
      for (let tries = 0; ; tries++) {
        const read = await api.GET('/v1/webhooks/{id}', byId(gone.id));
        if (read.data!.data.status === 'paused') return;
        if (tries > 100) throw new Error('the subscription was never paused');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  },
];

/** Subscribes `api`'s project to `types` at `path` of the receiver, 11 types a subscription (the most one takes). */
async function subscribeAll(api: CommerceClient, types: EventType[], path: string): Promise<void> {
  for (let start = 0; start < types.length; start += 11) {
    await createWebhook(api, receiver.url(path), { events: types.slice(start, start + 11) });
  }
}

/** The event types received at `path` until each of `types` arrived; fails with the missing ones after `timeoutMs`. */
async function receivedTypes(path: string, types: EventType[], timeoutMs = 30_000): Promise<Set<string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = new Set(receiver.on(path).map((request) => (JSON.parse(request.body) as { type: string }).type));
    if (types.every((type) => seen.has(type)) || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the event catalogue', () => {
  test('the table names an emitter for exactly the accepted types: every catalogue type but the not-yet-emitted ones', () => {
    const tabled = new Set(EMITTERS.flatMap((step) => step.emits));
    tabled.add('usage.warning'); // the next test: a project of its own, with a small monthly quota
    expect([...tabled].sort()).toEqual([...ACCEPTED].sort());
    expect(Object.keys(NOT_YET_EMITTED).every((type) => CATALOGUE.includes(type as EventType))).toBe(true);
  });

  test('every accepted type is emitted by its request(s) and received by a subscription to it', async () => {
    const types = ACCEPTED.filter((type) => type !== 'usage.warning');
    await subscribeAll(api, types, '/all');
    const state: State = {};
    const db = app.deps.db;
    for (const step of EMITTERS) {
      const count = () =>
        db.storeEvent.groupBy({
          by: ['type'],
          where: { projectId: store.project.id, type: { in: step.emits } },
          _count: true,
        });
      const before = new Map((await count()).map((row) => [row.type, row._count]));
      await step.run(api, state);
      const after = new Map((await count()).map((row) => [row.type, row._count]));
      const silent = step.emits.filter((type) => (after.get(type) ?? 0) <= (before.get(type) ?? 0));
      expect({ requests: step.requests, silent }).toEqual({ requests: step.requests, silent: [] });
    }
    const seen = await receivedTypes('/all', types);
    expect(types.filter((type) => !seen.has(type))).toEqual([]);
  }, 120_000); // some 60 requests and their deliveries, on a loaded machine

  test('usage.warning: the requests that reach 80 % of a monthly quota emit it to a subscription of the project', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000, monthly_quota: 10 });
    const own = app.client(project.keys.secret_test.token);
    await subscribeAll(own, ['usage.warning'], '/usage');
    for (let i = 0; i < 8; i++) await ok(own.GET('/v1/webhooks', { params: { query: { limit: 1 } } }));
    expect([...(await receivedTypes('/usage', ['usage.warning']))]).toEqual(['usage.warning']);
  });
});

describe('createWebhook and updateWebhook', () => {
  test('every type no operation emits yet is refused with 400 on events[i], saying why; nothing is written', async () => {
    const existing = await createWebhook(api, receiver.url('/refusals'), { events: ['product.created'] });
    for (const [type, reason] of Object.entries(NOT_YET_EMITTED) as Array<[EventType, string]>) {
      const created = await api.POST('/v1/webhooks', {
        body: { url: receiver.url('/refusals'), events: ['product.created', type] },
      });
      expect(created.response.status).toBe(400);
      expect(created.error!.error).toEqual({
        code: 'invalid_request',
        message: `${type} cannot be subscribed to yet: no operation emits it (${reason}). Subscribe to it once it is emitted.`,
        field: 'events[1]',
      });
      const updated = await api.PATCH('/v1/webhooks/{id}', { ...byId(existing.id), body: { events: [type] } });
      expect(updated.response.status).toBe(400);
      expect(updated.error!.error).toMatchObject({ code: 'invalid_request', field: 'events[0]' });
    }
    const read = await api.GET('/v1/webhooks/{id}', byId(existing.id));
    expect(read.data!.data.events).toEqual(['product.created']);
  });
});
