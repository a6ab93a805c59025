import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, buildDraftOrder, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const { app, api } = store;
const eventsFor = async (resourceId: string) =>
  (await api.GET('/v1/events', { params: { query: { resource_id: resourceId, order: 'asc' } } })).data!.data;
const address = {
  first_name: 'Jane',
  last_name: 'Doe',
  line1: 'Friedrichstrasse 68',
  city: 'Berlin',
  postal_code: '10117',
  country: 'DE',
};
const today = () => new Date().toISOString().slice(0, 10);
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('createDraftOrder', () => {
  test('an empty open draft: item_count 0, totals 0, due on receipt, numbered; records draft_order.created', async () => {
    const draft = await createDraftOrder(api, { currency: 'EUR', notes: 'Call first', metadata: { erp: 'Q-1' } });
    expect(draft).toMatchObject({
      status: 'open',
      currency: 'EUR',
      customer_id: null,
      customer_email: 'buyer@example.com',
      item_count: 0,
      subtotal: 0,
      tax: 0,
      tax_data: null,
      tax_inclusive: false,
      shipping_cost: 0,
      discount: 0,
      total: 0,
      payment_terms: 'due_on_receipt',
      payment_due_date: null,
      order_id: null,
      completed_at: null,
      notes: 'Call first',
      metadata: { erp: 'Q-1' },
      shipping_address: null,
      billing_address: null,
    });
    expect(draft.id).toMatch(/^dord_[0-9a-z]{26}$/);
    expect(draft.draft_number).toBeGreaterThanOrEqual(1);
    expect(draft.items).toBeUndefined();
    const [event] = await eventsFor(draft.id);
    expect(event).toMatchObject({
      type: 'draft_order.created',
      resource_type: 'draft_order',
      actor_type: 'api_key',
      actor_id: store.keys.secret_test.id,
    });
  });

  test('draft_number counts from 1 per project, gap-free under 20 concurrent creates', async () => {
    const own = await createProject(app);
    const client = app.client(own.keys.secret_test.token);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.POST('/v1/draft-orders', { body: buildDraftOrder() })),
    );
    expect(results.map((r) => r.response.status)).toEqual(Array(20).fill(201));
    expect(results.map((r) => r.data!.data.draft_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  test('a failed create gives its number back: the next draft takes it', async () => {
    const own = await createProject(app);
    const client = app.client(own.keys.secret_test.token);
    const first = await createDraftOrder(client);
    const failed = await client.POST('/v1/draft-orders', {
      body: buildDraftOrder({ customer_id: 'cus_00000000000000000000000000' }),
    });
    expect(failed.response.status).toBe(400);
    expect((await createDraftOrder(client)).draft_number).toBe(first.draft_number + 1);
  });

  test("customer_id takes the customer's email when customer_email is not sent; a sent customer_email wins", async () => {
    const customer = await createCustomer(api, { email: 'Ada@Example.com' });
    const implied = await createDraftOrder(api, { customer_id: customer.id, customer_email: undefined });
    expect(implied).toMatchObject({ customer_id: customer.id, customer_email: 'Ada@Example.com' });
    const explicit = await createDraftOrder(api, { customer_id: customer.id, customer_email: 'billing@example.com' });
    expect(explicit.customer_email).toBe('billing@example.com');
  });

  test("customer_id must name a live customer of the project (400 on customer_id): unknown, deleted or another project's", async () => {
    const deleted = await createCustomer(api);
    await api.DELETE('/v1/customers/{id}', byId(deleted.id));
    const other = await createProject(app);
    const theirs = await createCustomer(app.client(other.keys.secret_test.token));
    for (const id of ['cus_nope', deleted.id, theirs.id]) {
      const { error, response } = await api.POST('/v1/draft-orders', { body: buildDraftOrder({ customer_id: id }) });
      expect(response.status).toBe(400);
      expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    }
  });

  test('addresses are stored with every field (optional ones null)', async () => {
    const draft = await createDraftOrder(api, {
      shipping_address: address,
      billing_address: { line1: 'Rue de Rivoli 10', city: 'Paris', country: 'FR' },
    });
    expect(draft.shipping_address).toEqual({ ...address, company: null, line2: null, state: null, phone: null });
    expect(draft.billing_address).toEqual({
      first_name: null,
      last_name: null,
      company: null,
      line1: 'Rue de Rivoli 10',
      line2: null,
      city: 'Paris',
      state: null,
      postal_code: null,
      country: 'FR',
      phone: null,
    });
  });

  test.each([
    ['net_15', 15],
    ['net_30', 30],
    ['net_60', 60],
    ['net_90', 90],
  ] as const)('payment_terms %s sets payment_due_date %i days from today (UTC)', async (terms, days) => {
    const before = daysFromToday(days);
    const draft = await createDraftOrder(api, { payment_terms: terms });
    expect(draft.payment_terms).toBe(terms);
    expect([before, daysFromToday(days)]).toContain(draft.payment_due_date);
  });

  test.each([
    ['currency', { currency: 'eur' }],
    ['currency', { currency: undefined }],
    ['customer_email', { customer_email: 'not-an-email' }],
    ['shipping_address.country', { shipping_address: { ...address, country: 'Germany' } }],
    ['shipping_address.country', { shipping_address: { ...address, country: 'de' } }],
    ['shipping_address.line1', { shipping_address: { city: 'Berlin', country: 'DE' } }],
    ['billing_address.city', { billing_address: { line1: 'x', city: '', country: 'DE' } }],
    ['shipping_address.zip', { shipping_address: { ...address, zip: '10117' } }],
    ['notes', { notes: 'n'.repeat(5001) }],
    ['metadata', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
    ['payment_terms', { payment_terms: 'net_45' }],
  ])('an invalid %s answers 400 naming it', async (field, overrides) => {
    const { error, response } = await api.POST('/v1/draft-orders', {
      body: { ...buildDraftOrder(), ...overrides } as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('accepts the limits exactly: notes of 5000 characters, 50 metadata keys', async () => {
    const draft = await createDraftOrder(api, {
      notes: 'n'.repeat(5000),
      metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])),
    });
    expect(draft.notes).toHaveLength(5000);
  });

  test('malformed JSON answers 400 invalid_request', async () => {
    const response = await fetch(`${app.baseUrl}/v1/draft-orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.keys.secret_test.token}`, 'content-type': 'application/json' },
      body: '{"currency": "USD",',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });

  test('a publishable key is 403; no key 401', async () => {
    expect(
      (await app.client(store.keys.publishable_test.token).POST('/v1/draft-orders', { body: buildDraftOrder() }))
        .response.status,
    ).toBe(403);
    expect((await app.client().GET('/v1/draft-orders')).response.status).toBe(401);
  });
});

describe('getDraftOrder', () => {
  test('expand=items inlines the items in the order added; fields narrows the answer', async () => {
    const draft = await createDraftOrder(api);
    const items = await addItems(
      api,
      draft.id,
      [1, 2, 3].map((n) => ({ title: `Item ${n}`, unit_price: 100 * n, quantity: 1 })),
    );
    const read = await api.GET('/v1/draft-orders/{id}', {
      params: { path: { id: draft.id }, query: { expand: ['items'] } },
    });
    expect(read.data!.data.items!.map((i) => i.id)).toEqual(items.map((i) => i.id));
    const narrow = await api.GET('/v1/draft-orders/{id}', {
      params: { path: { id: draft.id }, query: { fields: ['total', 'item_count'] } },
    });
    expect(narrow.data!.data).toEqual({ id: draft.id, total: 600, item_count: 3 });
  });

  test("unknown and another project's drafts answer 404 Draft order not found.", async () => {
    const other = await createProject(app);
    const theirs = await createDraftOrder(app.client(other.keys.secret_test.token));
    for (const id of ['dord_nope', theirs.id]) {
      const { error, response } = await api.GET('/v1/draft-orders/{id}', byId(id));
      expect(response.status).toBe(404);
      expect(error).toEqual({ error: { code: 'not_found', message: 'Draft order not found.' } });
    }
  });

  test('an expand value other than items answers 400 with field expand', async () => {
    const draft = await createDraftOrder(api);
    const { error } = await api.GET('/v1/draft-orders/{id}', {
      params: { path: { id: draft.id }, query: { expand: ['customer' as never] } },
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'expand' });
  });
});

describe('listDraftOrders', () => {
  let client: CommerceClient;
  const ids: string[] = [];
  beforeAll(async () => {
    const own = await createProject(app);
    client = app.client(own.keys.secret_test.token);
    for (let i = 0; i < 5; i++)
      ids.push((await createDraftOrder(client, { customer_email: i % 2 ? 'Odd@Example.com' : 'even@example.com' })).id);
    await addItems(client, ids[0], [{ title: 'Thing', unit_price: 500, quantity: 1 }]);
    await client.POST('/v1/draft-orders/{id}/send', byId(ids[0]));
  });

  test('newest first by default; cursor pages through all of them; total counts the filter', async () => {
    const first = await client.GET('/v1/draft-orders', { params: { query: { limit: 2 } } });
    expect(first.data!.data.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    expect(first.data!.pagination).toMatchObject({ has_more: true, total: 5 });
    const seen = [...first.data!.data.map((d) => d.id)];
    let cursor = first.data!.pagination.cursor;
    while (cursor) {
      const page = await client.GET('/v1/draft-orders', { params: { query: { limit: 2, cursor } } });
      seen.push(...page.data!.data.map((d) => d.id));
      cursor = page.data!.pagination.cursor;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  test('filters by status and by customer_email (case-insensitive); sort updated_at asc', async () => {
    const sent = await client.GET('/v1/draft-orders', { params: { query: { status: 'sent' } } });
    expect(sent.data!.data.map((d) => d.id)).toEqual([ids[0]]);
    const odd = await client.GET('/v1/draft-orders', { params: { query: { customer_email: 'odd@example.COM' } } });
    expect(odd.data!.data.map((d) => d.id).sort()).toEqual([ids[1], ids[3]].sort());
    const byUpdate = await client.GET('/v1/draft-orders', { params: { query: { sort: 'updated_at', order: 'asc' } } });
    expect(byUpdate.data!.data.at(-1)!.id).toBe(ids[0]);
  });

  test('expand=items inlines items; without it there are none; fields applies to each draft', async () => {
    const expanded = await client.GET('/v1/draft-orders', { params: { query: { expand: ['items'], status: 'sent' } } });
    expect(expanded.data!.data[0].items!.map((i) => i.title)).toEqual(['Thing']);
    const plain = await client.GET('/v1/draft-orders', { params: { query: { status: 'sent' } } });
    expect(plain.data!.data[0].items).toBeUndefined();
    const narrow = await client.GET('/v1/draft-orders', { params: { query: { fields: ['status'], limit: 1 } } });
    expect(Object.keys(narrow.data!.data[0]).sort()).toEqual(['id', 'status']);
  });

  test('limit above 100 answers 400; a cursor used with another filter answers 400 on cursor', async () => {
    expect((await client.GET('/v1/draft-orders', { params: { query: { limit: 101 } } })).error!.error.field).toBe(
      'limit',
    );
    const page = await client.GET('/v1/draft-orders', { params: { query: { limit: 1 } } });
    const reused = await client.GET('/v1/draft-orders', {
      params: { query: { limit: 1, status: 'open', cursor: page.data!.pagination.cursor! } },
    });
    expect(reused.error!.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
  });
});

describe('updateDraftOrder', () => {
  test('changes only the fields sent, clears nullable ones with null, records the changes; an unchanged PATCH records nothing', async () => {
    const draft = await createDraftOrder(api, { notes: 'old', shipping_address: address });
    const { data, response } = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { notes: null, shipping_address: null, shipping_cost: 490 },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      notes: null,
      shipping_address: null,
      shipping_cost: 490,
      total: 490,
      customer_email: 'buyer@example.com',
    });
    await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { shipping_cost: 490 } });
    const events = await eventsFor(draft.id);
    expect(events.map((e) => e.type)).toEqual(['draft_order.created', 'draft_order.updated']);
    expect(events[1].metadata.changes).toMatchObject({
      notes: { from: 'old', to: null },
      shipping_cost: { from: 0, to: 490 },
      total: { from: 0, to: 490 },
    });
    expect(events[1].metadata.changes!.shipping_address.to).toBeNull();
  });

  test("customer_id without customer_email switches the email to the customer's; null unlinks and keeps the email", async () => {
    const customer = await createCustomer(api, { email: 'linked@example.com' });
    const draft = await createDraftOrder(api);
    const linked = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { customer_id: customer.id } });
    expect(linked.data!.data).toMatchObject({ customer_id: customer.id, customer_email: 'linked@example.com' });
    const unlinked = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { customer_id: null } });
    expect(unlinked.data!.data).toMatchObject({ customer_id: null, customer_email: 'linked@example.com' });
    const bad = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { customer_id: 'cus_unknown' } });
    expect(bad.error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
  });

  test('currency changes while item_count is 0; with items it is 400 on currency (the same currency is fine)', async () => {
    const draft = await createDraftOrder(api, { currency: 'USD' });
    expect(
      (await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { currency: 'EUR' } })).data!.data.currency,
    ).toBe('EUR');
    await addItems(api, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    const refused = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { currency: 'GBP' } });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error).toMatchObject({ code: 'invalid_request', field: 'currency' });
    expect(
      (await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { currency: 'EUR', notes: 'x' } })).response
        .status,
    ).toBe(200);
  });

  test('payment_terms change recomputes payment_due_date from today; due_on_receipt clears it', async () => {
    const draft = await createDraftOrder(api);
    const net = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { payment_terms: 'net_15' } });
    expect(net.data!.data.payment_due_date).toBe(daysFromToday(15));
    const receipt = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { payment_terms: 'due_on_receipt' },
    });
    expect(receipt.data!.data.payment_due_date).toBeNull();
    expect(today()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('total = subtotal + tax + shipping_cost - discount; a discount beyond that is 400 on discount and changes nothing', async () => {
    const draft = await createDraftOrder(api);
    await addItems(api, draft.id, [{ title: 'Chair', unit_price: 2500, quantity: 2 }]);
    const ok = await api.PATCH('/v1/draft-orders/{id}', {
      ...byId(draft.id),
      body: { tax: 400, shipping_cost: 600, discount: 1000 },
    });
    expect(ok.data!.data).toMatchObject({ subtotal: 5000, tax: 400, shipping_cost: 600, discount: 1000, total: 5000 });
    const exact = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { discount: 6000 } });
    expect(exact.data!.data.total).toBe(0);
    const negative = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: { discount: 6001 } });
    expect(negative.response.status).toBe(400);
    expect(negative.error!.error).toMatchObject({ code: 'invalid_request', field: 'discount' });
    expect((await api.GET('/v1/draft-orders/{id}', byId(draft.id))).data!.data.discount).toBe(6000);
  });

  test.each([
    ['shipping_cost', { shipping_cost: -1 }],
    ['discount', { discount: 1.5 }],
    ['tax', { tax: 'ten' }],
    ['body', {}],
    ['status', { status: 'completed' }],
  ])('an invalid %s answers 400', async (field, body) => {
    const draft = await createDraftOrder(api);
    const { error } = await api.PATCH('/v1/draft-orders/{id}', { ...byId(draft.id), body: body as never });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });
});

describe('deleteDraftOrder', () => {
  test('removes the draft and its items (204, then 404) and records draft_order.deleted', async () => {
    const draft = await createDraftOrder(api);
    const [item] = await addItems(api, draft.id, [{ title: 'Fee', unit_price: 100, quantity: 1 }]);
    expect((await api.DELETE('/v1/draft-orders/{id}', byId(draft.id))).response.status).toBe(204);
    expect((await api.GET('/v1/draft-orders/{id}', byId(draft.id))).response.status).toBe(404);
    expect(await app.deps.db.draftLineItem.count({ where: { id: item.id } })).toBe(0);
    expect((await eventsFor(draft.id)).map((e) => e.type)).toEqual([
      'draft_order.created',
      'draft_order.updated',
      'draft_order.deleted',
    ]);
  });

  test('a completed draft cannot be deleted: 400 invalid_request and it stays', async () => {
    const product = await createProduct(api, {
      variants: [{ title: 'Default', price: 1000, inventory_policy: 'continue' }],
    });
    const draft = await createDraftOrder(api, { currency: product.currency });
    await addItems(api, draft.id, [{ variant_id: product.variants[0].id, quantity: 1 }]);
    expect((await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).response.status).toBe(201);
    const { error, response } = await api.DELETE('/v1/draft-orders/{id}', byId(draft.id));
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: { code: 'invalid_request', message: 'A completed draft order cannot be deleted.' },
    });
    expect((await api.GET('/v1/draft-orders/{id}', byId(draft.id))).data!.data.status).toBe('completed');
  });
});
