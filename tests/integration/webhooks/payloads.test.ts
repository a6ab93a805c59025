import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AppDeps } from '../../../src/app-deps.js';
import { deliverWakeUps } from '../../../src/modules/webhooks/deliver.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// Every emitter that exists today, through the API, against subscriptions to every type they emit; the
// receiver must get, for each write, `data` equal to the resource as the API showed it then (for
// deletes, its last state).
const store = useStore({ app: { config: { allowPrivateNetworkTargets: true } } });
const { app, api } = store;
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

interface Expected {
  type: string;
  data: unknown;
}

/** Sends every queued delivery of the subscriptions and returns what the receiver got, as {type, data}. */
async function delivered(paths: string[]): Promise<Expected[]> {
  const pending = await app.deps.db.webhookDelivery.findMany({ where: { status: 'pending' }, select: { id: true } });
  await deliverWakeUps(
    deps,
    pending.map((d) => ({ v: 1 as const, deliveryId: d.id })),
  );
  return paths.flatMap((path) =>
    receiver.on(path).map((request) => {
      const { type, data } = JSON.parse(request.body) as Expected;
      return { type, data };
    }),
  );
}

const sorted = (list: Expected[]) => [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const withoutStock = ({ variant_count: _v, total_units: _t, ...location }: Record<string, unknown>) => location;

describe('webhook payloads of every emitter', () => {
  test('customers, products, variants, collections, locations, inventory.low and webhook_subscription.paused', async () => {
    await createWebhook(api, receiver.url('/catalog'), {
      events: [
        'customer.created',
        'customer.updated',
        'customer.deleted',
        'product.created',
        'product.updated',
        'product.deleted',
        'collection.created',
        'collection.updated',
        'collection.deleted',
        'inventory.low',
      ],
    });
    await createWebhook(api, receiver.url('/places'), {
      events: ['location.created', 'location.updated', 'location.deleted', 'webhook_subscription.paused'],
    });
    const expected: Expected[] = [];

    // customers
    const customer = await createCustomer(api, { first_name: 'Zoë', tags: ['vip'] });
    expected.push({ type: 'customer.created', data: customer });
    const renamed = await api.PATCH('/v1/customers/{id}', {
      ...byId(customer.id),
      body: { last_name: 'Ångström', metadata: { crm: 7 } },
    });
    expected.push({ type: 'customer.updated', data: renamed.data!.data });
    expect((await api.DELETE('/v1/customers/{id}', byId(customer.id))).response.status).toBe(204);
    expected.push({ type: 'customer.deleted', data: renamed.data!.data });

    // products and variants
    const product = await createProduct(api, {
      title: 'Trail Runner',
      variants: [{ title: 'S', price: 12900, low_stock_threshold: 5 }],
    });
    expected.push({ type: 'product.created', data: product });
    const updated = await api.PATCH('/v1/products/{id}', {
      ...byId(product.id),
      body: { title: 'Trail Runner 2', tags: ['run'] },
    });
    expected.push({ type: 'product.updated', data: updated.data!.data });
    const variant = await api.POST('/v1/products/{id}/variants', {
      ...byId(product.id),
      body: { title: 'M', price: 11900 },
    });
    expect(variant.response.status).toBe(201);
    const withVariant = (await api.GET('/v1/products/{id}', byId(product.id))).data!.data;
    expected.push({ type: 'product.updated', data: withVariant });
    const copy = await api.POST('/v1/products/{id}/duplicate', { ...byId(product.id), body: {} });
    expected.push({ type: 'product.created', data: copy.data!.data });

    // inventory.low: the variant drops below its threshold
    const location = await api.POST('/v1/locations', { body: { name: 'Depot' } });
    expected.push({ type: 'location.created', data: location.data!.data });
    const small = withVariant.variants.find((v) => v.title === 'S')!;
    await api.PUT('/v1/inventory-levels', {
      body: { variant_id: small.id, location_id: location.data!.data.id, available: 10 },
    });
    await api.PUT('/v1/inventory-levels', {
      body: { variant_id: small.id, location_id: location.data!.data.id, available: 2 },
    });
    expected.push({ type: 'inventory.low', data: (await api.GET('/v1/variants/{id}', byId(small.id))).data!.data });

    // collections
    const collection = await api.POST('/v1/collections', { body: { title: 'Running' } });
    expected.push({ type: 'collection.created', data: collection.data!.data });
    const retitled = await api.PATCH('/v1/collections/{id}', {
      ...byId(collection.data!.data.id),
      body: { description: 'For the road' },
    });
    expected.push({ type: 'collection.updated', data: retitled.data!.data });
    const added = await api.POST('/v1/collections/{id}/products', {
      ...byId(collection.data!.data.id),
      body: { product_ids: [product.id] },
    });
    expected.push({ type: 'collection.updated', data: added.data!.data });
    await api.DELETE('/v1/collections/{id}/products/{product_id}', {
      params: { path: { id: collection.data!.data.id, product_id: product.id } },
    });
    const emptied = (await api.GET('/v1/collections/{id}', byId(collection.data!.data.id))).data!.data;
    expected.push({ type: 'collection.updated', data: emptied });
    await api.DELETE('/v1/collections/{id}', byId(collection.data!.data.id));
    expected.push({ type: 'collection.deleted', data: emptied });

    const lastProduct = (await api.GET('/v1/products/{id}', byId(copy.data!.data.id))).data!.data;
    await api.DELETE('/v1/products/{id}', byId(copy.data!.data.id));
    expected.push({ type: 'product.deleted', data: lastProduct });

    // locations: update, set as default (the previous default changes too), delete
    const depot = location.data!.data.id;
    const moved = await api.PATCH('/v1/locations/{id}', { ...byId(depot), body: { city: 'Leipzig' } });
    expected.push({ type: 'location.updated', data: withoutStock(moved.data!.data) });
    const defaultBefore = (await api.GET('/v1/locations', { params: { query: { limit: 100 } } })).data!.data.find(
      (l) => l.is_default,
    )!;
    await api.PUT('/v1/inventory-levels', { body: { variant_id: small.id, location_id: depot, available: 0 } });
    const promoted = await api.POST('/v1/locations/{id}/default', byId(depot));
    expected.push({ type: 'location.updated', data: withoutStock(promoted.data!.data) });
    expected.push({
      type: 'location.updated',
      data: withoutStock((await api.GET('/v1/locations/{id}', byId(defaultBefore.id))).data!.data),
    });
    const spare = await api.POST('/v1/locations', { body: { name: 'Spare' } });
    expected.push({ type: 'location.created', data: spare.data!.data });
    const spareLast = withoutStock((await api.GET('/v1/locations/{id}', byId(spare.data!.data.id))).data!.data);
    await api.DELETE('/v1/locations/{id}', byId(spare.data!.data.id));
    expected.push({ type: 'location.deleted', data: spareLast });

    // webhook_subscription.paused: another subscription's receiver answers 410
    receiver.answer('/gone', { status: 410 });
    const gone = await createWebhook(api, receiver.url('/gone'), { events: ['customer.created'] });
    expected.push({ type: 'customer.created', data: await createCustomer(api) });
    await delivered([]); // sends that customer.created to /gone (and everything else so far)
    const paused = (await api.GET('/v1/webhooks/{id}', byId(gone.id))).data!.data;
    expect(paused.status).toBe('paused');
    expected.push({ type: 'webhook_subscription.paused', data: paused });

    const got = await delivered(['/catalog', '/places']);
    expect(sorted(got)).toEqual(sorted(expected));
    // Every type the API emits today is covered here.
    const types = new Set(got.map((g) => g.type));
    expect([...types].sort()).toEqual([
      'collection.created',
      'collection.deleted',
      'collection.updated',
      'customer.created',
      'customer.deleted',
      'customer.updated',
      'inventory.low',
      'location.created',
      'location.deleted',
      'location.updated',
      'product.created',
      'product.deleted',
      'product.updated',
      'webhook_subscription.paused',
    ]);
  });
});
