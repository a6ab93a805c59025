import { describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, readDraft } from '../../factories/draft-order.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// A connection for each of the 50 concurrent requests of the no-oversell tests: they meet at the variant's row lock,
// not in the pool.
const store = useStore({ project: { currency: 'EUR' }, app: { poolSize: 50 } });
const { app, api } = store;
const complete = (client: CommerceClient, id: string) => client.POST('/v1/draft-orders/{id}/complete', byId(id));
const setStock = (client: CommerceClient, variant_id: string, location_id: string, available: number) =>
  client.PUT('/v1/inventory-levels', { body: { variant_id, location_id, available } });
const levels = async (client: CommerceClient, variantId: string) =>
  Object.fromEntries(
    (await client.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.map((l) => [
      l.location_id,
      l.available,
    ]),
  );
const quantityOf = async (client: CommerceClient, variantId: string) =>
  (await client.GET('/v1/variants/{id}', byId(variantId))).data!.data.inventory_quantity;
const newLocation = async (client: CommerceClient, name: string) =>
  (await client.POST('/v1/locations', { body: { name } })).data!.data.id;

async function stockedProduct(
  client: CommerceClient,
  project: CreatedProject,
  units: number,
  variant: Record<string, unknown> = {},
): Promise<ProductResource> {
  const product = await createProduct(client, {
    title: 'Trail Runner 2',
    variants: [{ title: 'EU 42', sku: null, price: 9900, ...variant }],
  });
  if (units) await setStock(client, product.variants[0].id, project.project.default_location_id, units);
  return product;
}

describe('completeDraftOrder', () => {
  test('creates the order (201): ord_, numbered from 1001, copies of items, totals, addresses and terms; the draft is completed and linked', async () => {
    const own = await createProject(app, { currency: 'EUR' });
    const client = app.client(own.keys.secret_test.token);
    const product = await stockedProduct(client, own, 10);
    const customer = await createCustomer(client, { email: 'ada@example.com' });
    const address = { line1: 'Friedrichstrasse 68', city: 'Berlin', country: 'DE' };
    const draft = await createDraftOrder(client, {
      currency: 'EUR',
      customer_id: customer.id,
      customer_email: undefined,
      shipping_address: address,
      payment_terms: 'net_30',
    });
    await addItems(client, draft.id, [
      { variant_id: product.variants[0].id, quantity: 2 },
      { title: 'Gift wrapping', unit_price: 400, quantity: 1 },
    ]);
    await client.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { shipping_cost: 490, discount: 1000, tax: 300 },
    });

    const { data, response } = await complete(client, draft.id);
    expect(response.status).toBe(201);
    const order = data!.data;
    expect(order.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(order).toMatchObject({
      order_number: 1001,
      status: 'open',
      financial_status: 'pending',
      customer_id: customer.id,
      email: 'ada@example.com',
      currency: 'EUR',
      line_items: [
        {
          variant_id: product.variants[0].id,
          product_id: product.id,
          title: 'Trail Runner 2',
          variant_title: 'EU 42',
          sku: null,
          quantity: 2,
          unit_price: 9900,
          total: 19800,
        },
        {
          variant_id: null,
          product_id: null,
          title: 'Gift wrapping',
          variant_title: '',
          sku: null,
          quantity: 1,
          unit_price: 400,
          total: 400,
        },
      ],
      subtotal: 20200,
      tax: 300,
      tax_data: null,
      shipping_cost: 490,
      discount: 1000,
      total: 19990,
      shipping_address: {
        ...address,
        first_name: null,
        last_name: null,
        company: null,
        line2: null,
        state: null,
        postal_code: null,
        phone: null,
      },
      billing_address: null,
      payment_terms: 'net_30',
      payment_due_date: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
      draft_order_id: draft.id,
      paid_at: null,
    });
    const completed = await readDraft(client, draft.id);
    expect(completed).toMatchObject({ status: 'completed', order_id: order.id, completed_at: order.created_at });

    const second = await createDraftOrder(client, { currency: 'EUR' });
    await addItems(client, second.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    expect((await complete(client, second.id)).data!.data.order_number).toBe(1002);
    expect((await client.GET('/v1/orders/{id}', byId(order.id))).data!.data).toEqual(order);
  });

  test('deducts inventory for variant items only; records draft_order.completed, order.created and inventory.low', async () => {
    const product = await stockedProduct(api, store, 5, { low_stock_threshold: 3 });
    const variantId = product.variants[0].id;
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [
      { variant_id: variantId, quantity: 2 },
      { title: 'Custom', unit_price: 100, quantity: 7 },
      { variant_id: variantId, quantity: 1 },
    ]);
    const order = (await complete(api, draft.id)).data!.data;
    expect(await quantityOf(api, variantId)).toBe(2);

    const draftEvents = (await api.GET('/v1/events', { params: { query: { resource_id: draft.id } } })).data!.data;
    expect(draftEvents[0]).toMatchObject({ type: 'draft_order.completed', resource_type: 'draft_order' });
    expect(draftEvents[0].metadata.changes).toMatchObject({
      status: { from: 'open', to: 'completed' },
      order_id: { from: null, to: order.id },
    });
    const orderEvents = (await api.GET('/v1/events', { params: { query: { resource_id: order.id } } })).data!.data;
    expect(orderEvents.map((e) => e.type)).toEqual(['order.created']);
    const low = (await api.GET('/v1/events', { params: { query: { resource_id: variantId, type: 'inventory.low' } } }))
      .data!.data;
    expect(low).toHaveLength(1);
    expect(low[0].metadata.changes).toEqual({ inventory_quantity: { from: 5, to: 2 } });
  });

  test("inventory.low compares the variant's total over all its levels, inactive locations included, with its threshold", async () => {
    const product = await stockedProduct(api, store, 5, { low_stock_threshold: 8 });
    const variantId = product.variants[0].id;
    const inactive = await newLocation(api, 'Cold storage');
    await setStock(api, variantId, inactive, 6);
    await api.PATCH('/v1/locations/{id}', { ...byId(inactive), body: { is_active: false } });
    const lowEvents = async () =>
      (await api.GET('/v1/events', { params: { query: { resource_id: variantId, type: 'inventory.low' } } })).data!
        .data;
    const sell = async (quantity: number) => {
      const draft = await createDraftOrder(api, { currency: 'EUR' });
      await addItems(api, draft.id, [{ variant_id: variantId, quantity }]);
      expect((await complete(api, draft.id)).response.status).toBe(201);
    };

    await sell(2); // 11 -> 9: still at or above 8
    expect(await quantityOf(api, variantId)).toBe(9);
    expect(await lowEvents()).toEqual([]);
    await sell(2); // 9 -> 7: below 8
    expect(await quantityOf(api, variantId)).toBe(7);
    const low = await lowEvents();
    expect(low).toHaveLength(1);
    expect(low[0].metadata.changes).toEqual({ inventory_quantity: { from: 9, to: 7 } });
    expect(low[0].summary).toBe(`Variant ${variantId} is low on stock (7 left, threshold 8)`);
  });

  test('with and without a webhook listening, completion writes the same order, draft and events; the listener is offered both events', async () => {
    const completeIn = async (withWebhook: boolean) => {
      const own = await createProject(app, { currency: 'EUR' });
      const client = app.client(own.keys.secret_test.token);
      const webhook = withWebhook
        ? await createWebhook(client, 'https://order-hooks.example.com/', {
            events: ['order.created', 'draft_order.completed'],
          })
        : undefined;
      const product = await stockedProduct(client, own, 5);
      const draft = await createDraftOrder(client, { currency: 'EUR' });
      await addItems(client, draft.id, [{ variant_id: product.variants[0].id, quantity: 2 }]);
      const order = (await complete(client, draft.id)).data!.data;
      const events = async (resource_id: string) =>
        (await client.GET('/v1/events', { params: { query: { resource_id } } })).data!.data.map((e) => ({
          type: e.type,
          summary: e.summary,
          changes: e.metadata.changes,
        }));
      const deliveries = webhook
        ? (await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } })).map(
            (d) => d.eventType,
          )
        : [];
      const completed = await readDraft(client, draft.id);
      return {
        order: { ...order, id: undefined, draft_order_id: undefined, created_at: undefined, updated_at: undefined },
        draft: { status: completed.status, linked: completed.order_id === order.id },
        orderEvents: await events(order.id),
        draftEvents: (await events(draft.id)).map((e) => ({ ...e, summary: e.summary.replace(/#\d+ /, '#n ') })),
        deliveries: deliveries.sort(),
        stock: await quantityOf(client, product.variants[0].id),
      };
    };
    const quiet = await completeIn(false);
    const listened = await completeIn(true);
    expect(quiet.draft).toEqual({ status: 'completed', linked: true });
    expect(quiet.orderEvents).toEqual([
      { type: 'order.created', summary: expect.stringMatching(/^Order #1001 created/), changes: undefined },
    ]);
    expect(quiet.draftEvents[0]).toMatchObject({
      type: 'draft_order.completed',
      summary: expect.stringMatching(/as order #1001$/),
    });
    expect(quiet.stock).toBe(3);
    expect(listened.deliveries).toEqual(['draft_order.completed', 'order.created']);
    // Ids and times differ between the two projects; everything else must be the same.
    const comparable = (result: typeof quiet) =>
      JSON.parse(
        JSON.stringify({ ...result, deliveries: [] })
          .replace(/[a-z]+_[0-9a-z]{26}/g, 'id')
          .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'time'),
      ) as unknown;
    expect(comparable(listened)).toEqual(comparable(quiet));
  });

  test('stock comes from the default location first, then the other active locations by name; inactive locations are skipped', async () => {
    const own = await createProject(app, { currency: 'EUR' });
    const client = app.client(own.keys.secret_test.token);
    const product = await stockedProduct(client, own, 2);
    const variantId = product.variants[0].id;
    const zurich = await newLocation(client, 'Zurich');
    const berlin = await newLocation(client, 'Berlin');
    const closed = await newLocation(client, 'Aachen');
    await setStock(client, variantId, zurich, 5);
    await setStock(client, variantId, berlin, 3);
    await setStock(client, variantId, closed, 50);
    await client.PATCH('/v1/locations/{id}', { ...byId(closed), body: { is_active: false } });

    const draft = await createDraftOrder(client, { currency: 'EUR' });
    await addItems(client, draft.id, [{ variant_id: variantId, quantity: 6 }]);
    expect((await complete(client, draft.id)).response.status).toBe(201);
    expect(await levels(client, variantId)).toEqual({
      [own.project.default_location_id]: 0,
      [berlin]: 0,
      [zurich]: 4,
      [closed]: 50,
    });
    expect(await quantityOf(client, variantId)).toBe(54);
    const ledger = await app.deps.db.inventoryAdjustment.findMany({
      where: { variantId, reason: 'order' },
      orderBy: { createdAt: 'asc' },
    });
    expect(ledger.map((a) => [a.locationId, a.delta, a.availableAfter])).toEqual([
      [own.project.default_location_id, -2, 0],
      [berlin, -3, 0],
      [zurich, -1, 4],
    ]);
  });

  test('deny (the default): short at the active locations is 409 conflict naming the variant, and nothing changes', async () => {
    const product = await stockedProduct(api, store, 1);
    const variantId = product.variants[0].id;
    expect(product.variants[0].inventory_policy).toBe('deny');
    const inactive = await newLocation(api, 'Overflow');
    await setStock(api, variantId, inactive, 10);
    await api.PATCH('/v1/locations/{id}', { ...byId(inactive), body: { is_active: false } });
    const customer = await createCustomer(api);
    const draft = await createDraftOrder(api, { currency: 'EUR', customer_id: customer.id });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 2 }]);
    const eventsBefore = (await api.GET('/v1/events', { params: { query: { limit: 1 } } })).data!.pagination.total;

    const { error, response } = await complete(api, draft.id);
    expect(response.status).toBe(409);
    expect(error!.error).toMatchObject({ code: 'conflict', field: variantId });
    expect(error!.error.message).toContain('1 available at active locations, 2 ordered');
    expect(await readDraft(api, draft.id)).toMatchObject({ status: 'open', order_id: null, completed_at: null });
    expect(await quantityOf(api, variantId)).toBe(11);
    expect((await api.GET('/v1/customers/{id}', byId(customer.id))).data!.data.order_count).toBe(0);
    expect((await api.GET('/v1/orders', { params: { query: { customer_id: customer.id } } })).data!.data).toEqual([]);
    expect((await api.GET('/v1/events', { params: { query: { limit: 1 } } })).data!.pagination.total).toBe(
      eventsBefore,
    );
  });

  test('continue: selling beyond stock takes the shortfall from the default location, which goes negative', async () => {
    const product = await stockedProduct(api, store, 1, { inventory_policy: 'continue' });
    const variantId = product.variants[0].id;
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ variant_id: variantId, quantity: 4 }]);
    expect((await complete(api, draft.id)).response.status).toBe(201);
    expect(await levels(api, variantId)).toEqual({ [store.project.default_location_id]: -3 });
    expect(await quantityOf(api, variantId)).toBe(-3);
  });

  test('a variant removed from the catalog after it was added is 409 naming it', async () => {
    const product = await createProduct(api, {
      variants: [
        { title: 'A', price: 100 },
        { title: 'B', price: 100 },
      ],
    });
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ variant_id: product.variants[1].id, quantity: 1 }]);
    await api.DELETE('/v1/variants/{id}', byId(product.variants[1].id));
    const { error } = await complete(api, draft.id);
    expect(error!.error).toMatchObject({ code: 'conflict', field: product.variants[1].id });
  });

  test('without customer email or without items: 400 invalid_request (case mapping 5)', async () => {
    const noEmail = await createDraftOrder(api, { currency: 'EUR', customer_email: null });
    await addItems(api, noEmail.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    const a = await complete(api, noEmail.id);
    expect(a.response.status).toBe(400);
    expect(a.error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_email' });
    const noItems = await createDraftOrder(api, { currency: 'EUR' });
    const b = await complete(api, noItems.id);
    expect(b.response.status).toBe(400);
    expect(b.error!.error).toMatchObject({ code: 'invalid_request', field: 'items' });
  });

  test('from sent; completing twice is 400 and never makes a second order', async () => {
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    expect((await complete(api, draft.id)).response.status).toBe(201);
    const again = await complete(api, draft.id);
    expect(again.response.status).toBe(400);
    expect(again.error).toEqual({
      error: { code: 'invalid_request', message: 'This draft order is already completed.' },
    });
    expect(await app.deps.db.order.count({ where: { draftOrderId: draft.id } })).toBe(1);
  });

  test('a retried complete with the same Idempotency-Key answers the same order (201, replayed)', async () => {
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    const headers = { 'Idempotency-Key': `complete-${draft.id}` };
    const first = await api.POST('/v1/draft-orders/{id}/complete', {
      ...byId(draft.id),
      params: { ...byId(draft.id).params, header: headers },
    });
    const retry = await api.POST('/v1/draft-orders/{id}/complete', {
      ...byId(draft.id),
      params: { ...byId(draft.id).params, header: headers },
    });
    expect([first.response.status, retry.response.status]).toEqual([201, 201]);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data!.data).toEqual(first.data!.data);
  });

  test('ten concurrent completes of one draft make one order; the others answer 400', async () => {
    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    const answers = await Promise.all(Array.from({ length: 10 }, () => complete(api, draft.id)));
    expect(answers.map((a) => a.response.status).sort()).toEqual([201, ...Array(9).fill(400)]);
    expect(await app.deps.db.order.count({ where: { draftOrderId: draft.id } })).toBe(1);
  });

  test.each([
    ['without a listener', false],
    ['with a webhook listening', true],
  ])(
    "the customer's order_count, first_order_at and last_order_at follow each completion (%s)",
    async (_, withWebhook) => {
      const own = await createProject(app, { currency: 'EUR' });
      const client = app.client(own.keys.secret_test.token);
      if (withWebhook) await createWebhook(client, 'https://order-hooks.example.com/', { events: ['order.created'] });
      const customer = await createCustomer(client);
      const orders = [];
      for (let i = 0; i < 2; i++) {
        const draft = await createDraftOrder(client, { currency: 'EUR', customer_id: customer.id });
        await addItems(client, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
        orders.push((await complete(client, draft.id)).data!.data);
      }
      const read = (await client.GET('/v1/customers/{id}', byId(customer.id))).data!.data;
      expect(read).toMatchObject({
        order_count: 2,
        total_spent: 0,
        first_order_at: orders[0].created_at,
        last_order_at: orders[1].created_at,
      });
      const list = await client.GET('/v1/customers', { params: { query: { min_orders: 2, email: customer.email } } });
      expect(list.data!.data.map((c) => c.id)).toEqual([customer.id]);
    },
  );

  test('an unknown draft is 404', async () => {
    expect((await complete(api, 'dord_nope')).error).toEqual({
      error: { code: 'not_found', message: 'Draft order not found.' },
    });
  });
});

describe('no oversell', () => {
  test('fifty concurrent completes of fifty drafts that each want the last unit: exactly one order; the ledger sums to the totals', async () => {
    const own = await createProject(app, { currency: 'EUR' });
    const client = app.client(own.keys.secret_test.token);
    const product = await stockedProduct(client, own, 1);
    const variantId = product.variants[0].id;
    const drafts = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const draft = await createDraftOrder(client, { currency: 'EUR' });
        await addItems(client, draft.id, [{ variant_id: variantId, quantity: 1 }]);
        return draft;
      }),
    );
    const answers = await Promise.all(drafts.map((draft) => complete(client, draft.id)));
    const statuses = answers.map((a) => a.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(
      answers
        .filter((a) => a.error)
        .every((a) => a.error!.error.code === 'conflict' && a.error!.error.field === variantId),
    ).toBe(true);

    expect((await client.GET('/v1/orders')).data!.pagination.total).toBe(1);
    expect(
      (await client.GET('/v1/draft-orders', { params: { query: { status: 'completed' } } })).data!.pagination.total,
    ).toBe(1);
    expect(await quantityOf(client, variantId)).toBe(0);
    const ledger = await app.deps.db.inventoryAdjustment.aggregate({ where: { variantId }, _sum: { delta: true } });
    const stock = await app.deps.db.inventoryLevel.aggregate({ where: { variantId }, _sum: { available: true } });
    expect(ledger._sum.delta).toBe(0);
    expect(stock._sum.available).toBe(0);
  });
});

describe('no oversell with reservations', () => {
  test('fifty concurrent completes of other drafts cannot take the units a sent draft holds; the sent draft still completes', async () => {
    const own = await createProject(app, { currency: 'EUR' });
    const client = app.client(own.keys.secret_test.token);
    const product = await stockedProduct(client, own, 3);
    const variantId = product.variants[0].id;
    const held = await createDraftOrder(client, { currency: 'EUR' });
    await addItems(client, held.id, [{ variant_id: variantId, quantity: 2 }]);
    expect((await client.POST('/v1/draft-orders/{id}/send', byId(held.id))).response.status).toBe(200);

    const drafts = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const draft = await createDraftOrder(client, { currency: 'EUR' });
        await addItems(client, draft.id, [{ variant_id: variantId, quantity: 1 }]);
        return draft;
      }),
    );
    const answers = await Promise.all(drafts.map((draft) => complete(client, draft.id)));
    const statuses = answers.map((a) => a.response.status);
    // 3 on hand, 2 held: one unit is for sale.
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(await quantityOf(client, variantId)).toBe(2);

    expect((await complete(client, held.id)).response.status).toBe(201);
    expect(await quantityOf(client, variantId)).toBe(0);
    expect(await app.deps.db.inventoryReservation.count({ where: { variantId } })).toBe(0);
    const ledger = await app.deps.db.inventoryAdjustment.aggregate({ where: { variantId }, _sum: { delta: true } });
    expect(ledger._sum.delta).toBe(0);
  });
});
