import { describe, expect, test } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, type OrderResource } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

type ReturnCreate = components['schemas']['ReturnCreate'];

const store = useStore({ project: { name: 'Acme Outdoor', currency: 'EUR' } });
const { app, api } = store;

const location = () => store.project.default_location_id;
const available = async (variantId: string) =>
  (await api.GET('/v1/variants/{id}/inventory-levels', byId(variantId))).data!.data.find(
    (level) => level.location_id === location(),
  )!.available;
const requestReturn = (orderId: string, body: ReturnCreate) =>
  api.POST('/v1/orders/{id}/returns', { ...byId(orderId), body });
const outbox = async (to: string) =>
  (
    await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: store.project.id }, query: { to } },
    })
  ).data!.data;

/** A paid order of `quantity` units (5000 each) of a new variant stocked 10 at the default location, `shipped` of them shipped. */
async function shippedOrder(quantity: number, shipped = quantity, draft: { customer_id?: string } = {}) {
  const product = await createProduct(api, {
    title: 'Trail Runner',
    variants: [{ title: 'EU 42', sku: null, price: 5000 }],
  });
  const variantId = product.variants[0].id;
  await api.PUT('/v1/inventory-levels', { body: { variant_id: variantId, location_id: location(), available: 10 } });
  const created = await createDraftOrder(
    api,
    draft.customer_id
      ? { currency: 'EUR', customer_id: draft.customer_id, customer_email: undefined }
      : { currency: 'EUR' },
  );
  await addItems(api, created.id, [{ variant_id: variantId, quantity }]);
  const order: OrderResource = (await api.POST('/v1/draft-orders/{id}/complete', byId(created.id))).data!.data;
  expect((await api.POST('/v1/orders/{id}/pay', byId(order.id))).response.status).toBe(200);
  const lineId = order.line_items[0].id;
  if (shipped > 0) {
    const fulfilment = await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: { location_id: location(), line_items: [{ line_item_id: lineId, quantity: shipped }] },
    });
    expect(fulfilment.response.status).toBe(201);
  }
  return { order, variantId, lineId };
}

describe('order line item ids', () => {
  test('every line item of an order has a stable oli_ id, the same on every read; fulfilments and refunds name it next to line_item_index', async () => {
    const { order, lineId } = await shippedOrder(3, 1);
    expect(lineId).toMatch(/^oli_[0-9a-z]{26}$/);
    const read = (await api.GET('/v1/orders/{id}', byId(order.id))).data!.data;
    expect('line_items' in read && read.line_items[0].id).toBe(lineId);
    const fulfilments = (await api.GET('/v1/orders/{id}/fulfillments', byId(order.id))).data!.data;
    expect(fulfilments[0].line_items).toEqual([{ line_item_id: lineId, line_item_index: 0, quantity: 1 }]);
    const refund = await api.POST('/v1/orders/{id}/refunds', {
      ...byId(order.id),
      body: { amount: 0, line_items: [{ line_item_id: lineId, quantity: 1 }] },
    });
    expect(refund.response.status).toBe(201);
    expect(refund.data!.data.line_items).toEqual([
      { line_item_id: lineId, line_item_index: 0, quantity: 1, location_id: location() },
    ]);
    // line_item_index alone stays accepted.
    const byIndex = await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(order.id),
      body: { location_id: location(), line_items: [{ line_item_index: 0, quantity: 1 }] },
    });
    expect(byIndex.data!.data.line_items).toEqual([{ line_item_id: lineId, line_item_index: 0, quantity: 1 }]);
  });

  test('an unknown line id, an id and index naming different items, or neither, answer 400 on the field; nothing is written', async () => {
    const { order } = await shippedOrder(2, 0);
    const ship = (line: { line_item_id?: string; line_item_index?: number; quantity: number }) =>
      api.POST('/v1/orders/{id}/fulfillments', {
        ...byId(order.id),
        body: { location_id: location(), line_items: [line] },
      });
    const unknown = await ship({ line_item_id: 'oli_00000000000000000000000000', quantity: 1 });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error!.error).toEqual({
      code: 'invalid_request',
      message: 'The order has no line item oli_00000000000000000000000000.',
      field: 'line_items[0].line_item_id',
    });
    const neither = await ship({ quantity: 1 });
    expect(neither.error!.error.field).toBe('line_items[0].line_item_id');
    const twoItems = await ship({ line_item_id: order.line_items[0].id, line_item_index: 1, quantity: 1 });
    expect(twoItems.error!.error.field).toBe('line_items[0].line_item_index');
    expect((await api.GET('/v1/orders/{id}/fulfillments', byId(order.id))).data!.data).toEqual([]);
  });
});

describe('a return from request to refund', () => {
  test('a return of 2 of 3 fulfilled units, received and refunded, restocks 2 and refunds their paid amount', async () => {
    const { order, variantId, lineId } = await shippedOrder(3);
    expect(await available(variantId)).toBe(7);

    const requested = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 2 }],
      reason: 'size_too_small',
      note: 'Too tight at the toes.',
    });
    expect(requested.response.status).toBe(201);
    const id = requested.data!.data.id;
    expect(requested.data!.data).toMatchObject({
      status: 'requested',
      requested_by: 'merchant',
      line_items: [
        { line_item_id: lineId, line_item_index: 0, quantity: 2, restocked_quantity: null, damaged_quantity: null },
      ],
    });

    const approved = await api.POST('/v1/returns/{id}/approve', {
      ...byId(id),
      body: { message: 'Send them back with the label.' },
    });
    expect(approved.data!.data).toMatchObject({ status: 'approved', message: 'Send them back with the label.' });
    const received = await api.POST('/v1/returns/{id}/receive', { ...byId(id), body: { location_id: location() } });
    expect(received.response.status).toBe(200);
    expect(received.data!.data).toMatchObject({
      status: 'received',
      location_id: location(),
      line_items: [{ line_item_id: lineId, quantity: 2, restocked_quantity: 2, damaged_quantity: 0 }],
    });
    expect(await available(variantId)).toBe(9);
    const ledger = await app.deps.db.inventoryAdjustment.findMany({ where: { variantId, reason: 'restock' } });
    expect(ledger.map((row) => row.delta)).toEqual([2]);

    const closed = await api.POST('/v1/returns/{id}/close', { ...byId(id), body: {} });
    expect(closed.response.status).toBe(200);
    const refunds = (await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data;
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 10000, line_items: [], reason: `Return ${id}` });
    expect(closed.data!.data).toMatchObject({ status: 'closed', refund_id: refunds[0].id });
    const after = (await api.GET('/v1/orders/{id}', byId(order.id))).data!.data;
    expect(after).toMatchObject({
      total_refunded: 10000,
      financial_status: 'partially_refunded',
      returns: [{ id, status: 'closed' }],
    });
    expect(await available(variantId)).toBe(9);
    expect((await api.GET('/v1/returns/{id}', byId(id))).data!.data).toEqual(closed.data!.data);
    expect((await api.GET('/v1/orders/{id}/returns', byId(order.id))).data!.data).toEqual([closed.data!.data]);

    const events = (
      await api.GET('/v1/events', { params: { query: { resource_type: 'return', resource_id: id, order: 'asc' } } })
    ).data!.data;
    expect(events.map((event) => event.type)).toEqual([
      'return.requested',
      'return.approved',
      'return.received',
      'return.closed',
    ]);
  });

  test('damaged units stay out of stock; the refund covers every returned unit; refund_amount overrides it', async () => {
    const { order, variantId, lineId } = await shippedOrder(3);
    const id = (
      await requestReturn(order.id, { line_items: [{ line_item_id: lineId, quantity: 3 }], reason: 'defective' })
    ).data!.data.id;
    await api.POST('/v1/returns/{id}/approve', { ...byId(id), body: {} });
    const received = await api.POST('/v1/returns/{id}/receive', {
      ...byId(id),
      body: { location_id: location(), line_items: [{ line_item_id: lineId, damaged_quantity: 1 }] },
    });
    expect(received.data!.data.line_items[0]).toMatchObject({ restocked_quantity: 2, damaged_quantity: 1 });
    expect(await available(variantId)).toBe(9);
    const closed = await api.POST('/v1/returns/{id}/close', { ...byId(id), body: { refund_amount: 12000 } });
    expect(closed.response.status).toBe(200);
    expect((await api.GET('/v1/orders/{id}', byId(order.id))).data!.data).toMatchObject({ total_refunded: 12000 });
  });

  test('too many damaged units, a move from the wrong status, a refund above what is left: 400 and nothing changes', async () => {
    const { order, variantId, lineId } = await shippedOrder(2);
    const id = (
      await requestReturn(order.id, { line_items: [{ line_item_id: lineId, quantity: 2 }], reason: 'unwanted' })
    ).data!.data.id;
    const early = await api.POST('/v1/returns/{id}/receive', { ...byId(id), body: { location_id: location() } });
    expect(early.error!.error).toEqual({
      code: 'invalid_request',
      message: 'This return is requested; only an approved return can be received.',
    });
    await api.POST('/v1/returns/{id}/approve', { ...byId(id), body: {} });
    const damaged = await api.POST('/v1/returns/{id}/receive', {
      ...byId(id),
      body: { location_id: location(), line_items: [{ line_item_index: 0, damaged_quantity: 3 }] },
    });
    expect(damaged.error!.error).toEqual({
      code: 'invalid_request',
      message: 'Line item 0 has 2 units in this return; 3 damaged.',
      field: 'line_items[0].damaged_quantity',
    });
    expect(await available(variantId)).toBe(8);
    await api.POST('/v1/returns/{id}/receive', { ...byId(id), body: { location_id: location() } });
    const cancel = await api.POST('/v1/returns/{id}/cancel', byId(id));
    expect(cancel.response.status).toBe(400);
    const tooMuch = await api.POST('/v1/returns/{id}/close', { ...byId(id), body: { refund_amount: 10001 } });
    expect(tooMuch.error!.error).toMatchObject({ code: 'invalid_request', field: 'refund_amount' });
    expect((await api.GET('/v1/returns/{id}', byId(id))).data!.data.status).toBe('received');
    expect((await api.GET('/v1/orders/{id}/refunds', byId(order.id))).data!.data).toEqual([]);
  });
});

describe('createOrderReturn', () => {
  test('quantities never exceed shipped minus other returns and refund restocks; rejected and cancelled returns give their units back', async () => {
    const { order, lineId } = await shippedOrder(3);
    const first = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 2 }],
      reason: 'style',
    });
    expect(first.response.status).toBe(201);
    const tooMany = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 2 }],
      reason: 'style',
    });
    expect(tooMany.error!.error).toEqual({
      code: 'invalid_request',
      message: 'Line item 0 (Trail Runner - EU 42) has 1 unit that can be returned; 2 requested.',
      field: 'line_items[0].quantity',
    });
    // A refund cannot restock units a return holds.
    const refund = await api.POST('/v1/orders/{id}/refunds', {
      ...byId(order.id),
      body: { amount: 0, line_items: [{ line_item_id: lineId, quantity: 2 }] },
    });
    expect(refund.response.status).toBe(400);
    await api.POST('/v1/returns/{id}/reject', { ...byId(first.data!.data.id), body: { message: 'Worn.' } });
    const again = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 3 }],
      reason: 'style',
    });
    expect(again.response.status).toBe(201);
    await api.POST('/v1/returns/{id}/cancel', byId(again.data!.data.id));
    const third = await requestReturn(order.id, { line_items: [{ line_item_index: 0, quantity: 3 }], reason: 'other' });
    expect(third.response.status).toBe(201);
    expect((await api.GET('/v1/orders/{id}', byId(order.id))).data!.data).toMatchObject({
      returns: [
        { id: first.data!.data.id, status: 'rejected' },
        { id: again.data!.data.id, status: 'cancelled' },
        { id: third.data!.data.id, status: 'requested' },
      ],
    });
  });

  test('10 concurrent return requests of one unit each for 3 shipped units: exactly 3 are recorded', async () => {
    const { order, lineId } = await shippedOrder(3);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        requestReturn(order.id, { line_items: [{ line_item_id: lineId, quantity: 1 }], reason: 'unwanted' }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 400)).toHaveLength(7);
    expect(await app.deps.db.return.count({ where: { orderId: order.id } })).toBe(3);
  });

  test('unshipped units, custom items and cancelled orders cannot be returned; another project answers 404', async () => {
    const { order, lineId } = await shippedOrder(2, 0);
    const unshipped = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 1 }],
      reason: 'other',
    });
    expect(unshipped.error!.error.message).toBe(
      'Line item 0 (Trail Runner - EU 42) has 0 units that can be returned; 1 requested.',
    );
    const other = await createProject(app);
    const foreign = await app.client(other.keys.secret_test.token).POST('/v1/orders/{id}/returns', {
      ...byId(order.id),
      body: { line_items: [{ line_item_id: lineId, quantity: 1 }], reason: 'other' },
    });
    expect(foreign.response.status).toBe(404);
    await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'customer' } });
    const cancelled = await requestReturn(order.id, {
      line_items: [{ line_item_id: lineId, quantity: 1 }],
      reason: 'other',
    });
    expect(cancelled.error!.error.message).toBe('This order is cancelled; its units cannot be returned.');
    expect(await app.deps.db.return.count({ where: { orderId: order.id } })).toBe(0);

    const draft = await createDraftOrder(api, { currency: 'EUR' });
    await addItems(api, draft.id, [{ title: 'Engraving', unit_price: 1500, quantity: 1 }]);
    const custom = (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
    const customLine = custom.line_items[0].id;
    await api.POST('/v1/orders/{id}/fulfillments', {
      ...byId(custom.id),
      body: { location_id: location(), line_items: [{ line_item_id: customLine, quantity: 1 }] },
    });
    const customReturn = await requestReturn(custom.id, {
      line_items: [{ line_item_id: customLine, quantity: 1 }],
      reason: 'other',
    });
    expect(customReturn.error!.error).toEqual({
      code: 'invalid_request',
      message: 'Line item 0 (Engraving) is a custom item: it cannot be returned; refund it directly.',
      field: 'line_items[0].line_item_id',
    });
  });

  test('return.* events are offered to webhook subscriptions', async () => {
    const webhook = await createWebhook(api, 'https://return-hooks.example.com/', {
      events: ['return.requested', 'return.approved', 'return.cancelled'],
    });
    const { order, lineId } = await shippedOrder(1);
    const id = (await requestReturn(order.id, { line_items: [{ line_item_id: lineId, quantity: 1 }], reason: 'other' }))
      .data!.data.id;
    await api.POST('/v1/returns/{id}/approve', { ...byId(id), body: {} });
    await api.POST('/v1/returns/{id}/cancel', byId(id));
    const deliveries = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    expect(deliveries.map((d) => d.eventType).sort()).toEqual([
      'return.approved',
      'return.cancelled',
      'return.requested',
    ]);
  });
});

describe('approveReturn and rejectReturn', () => {
  test("the decision e-mails the customer in their language with the merchant's message", async () => {
    const customer = await createCustomer(api, { email: 'lena@example.de', locale: 'de' });
    const { order, lineId } = await shippedOrder(2, 2, { customer_id: customer.id });
    const id = (await requestReturn(order.id, { line_items: [{ line_item_id: lineId, quantity: 1 }], reason: 'color' }))
      .data!.data.id;
    const rejected = await api.POST('/v1/returns/{id}/reject', {
      ...byId(id),
      body: { message: 'Getragene Schuhe nehmen wir nicht zurück.' },
    });
    expect(rejected.data!.data).toMatchObject({
      status: 'rejected',
      message: 'Getragene Schuhe nehmen wir nicht zurück.',
    });
    const [email] = await outbox('lena@example.de');
    expect(email).toMatchObject({
      template: 'return_rejected',
      locale: 'de',
      subject: `Ihre Rücksendung zur Bestellung #${order.order_number} bei Acme Outdoor wurde abgelehnt`,
    });
    expect(email.text).toContain('1 x Trail Runner - EU 42');
    expect(email.text).toContain('Getragene Schuhe nehmen wir nicht zurück.');
    const twice = await api.POST('/v1/returns/{id}/approve', { ...byId(id), body: {} });
    expect(twice.error!.error.message).toBe('This return is rejected; only a requested return can be approved.');
  });
});
