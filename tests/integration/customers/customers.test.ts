import { describe, expect, test } from '@jest/globals';
import { purgeDeletedCustomers } from '../../../src/modules/customers/customers.service.js';
import { buildCustomer, createCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();
const eventsFor = async (resourceId: string) =>
  (await store.api.GET('/v1/events', { params: { query: { resource_id: resourceId, order: 'asc' } } })).data!.data;

describe('a customer from creation to deletion', () => {
  test('two addresses (the second default), a note, expand=addresses shows one default first; same email in another case is 409; after DELETE 404 and the email is free', async () => {
    const customer = await createCustomer(store.api, {
      email: 'Jane.Doe@Example.com',
      first_name: 'Jane',
      last_name: 'Doe',
    });
    const first = await store.api.POST('/v1/customers/{id}/addresses', {
      ...byId(customer.id),
      body: { line1: 'Hauptstrasse 1', city: 'Berlin', country: 'DE' },
    });
    const second = await store.api.POST('/v1/customers/{id}/addresses', {
      ...byId(customer.id),
      body: { line1: 'Rue de Rivoli 10', city: 'Paris', country: 'FR', is_default: true },
    });
    expect(first.response.status).toBe(201);
    expect(second.data!.data.is_default).toBe(true);
    const note = await store.api.POST('/v1/customers/{id}/notes', {
      ...byId(customer.id),
      body: { content: 'Prefers e-mail contact.' },
    });
    expect(note.response.status).toBe(201);

    const read = await store.api.GET('/v1/customers/{id}', {
      params: { path: { id: customer.id }, query: { expand: ['addresses'] } },
    });
    const addresses = read.data!.data.addresses!;
    expect(addresses.filter((a) => a.is_default)).toHaveLength(1);
    expect(addresses.map((a) => [a.city, a.is_default])).toEqual([
      ['Paris', true],
      ['Berlin', false],
    ]);

    const duplicate = await store.api.POST('/v1/customers', { body: buildCustomer({ email: 'jane.doe@example.COM' }) });
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.error!.error).toMatchObject({ code: 'conflict', field: 'email' });

    expect((await store.api.DELETE('/v1/customers/{id}', byId(customer.id))).response.status).toBe(204);
    const gone = await store.api.GET('/v1/customers/{id}', byId(customer.id));
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: { code: 'not_found', message: 'Customer not found.' } });
    const reused = await store.api.POST('/v1/customers', { body: buildCustomer({ email: 'jane.doe@example.com' }) });
    expect(reused.response.status).toBe(201);
  });
});

describe('createCustomer', () => {
  test('applies the defaults; order_count and total_spent are 0', async () => {
    const customer = await createCustomer(store.api, { email: 'defaults@example.com' });
    expect(customer).toMatchObject({
      email: 'defaults@example.com',
      phone: null,
      company: null,
      status: 'active',
      order_count: 0,
      total_spent: 0,
      tags: [],
      metadata: {},
      active_price_key: null,
      locale: null,
      tax_number: null,
      tax_number_type: null,
    });
    expect(customer.id).toMatch(/^cus_[0-9a-z]{26}$/);
    expect(customer.addresses).toBeUndefined();
  });

  test('keeps every optional field', async () => {
    const body = buildCustomer({
      phone: '+44 20 7946 0958',
      company: 'Globex Ltd',
      status: 'inactive',
      tags: ['vip', 'b2b'],
      metadata: { crm: 'C-1' },
      active_price_key: 'wholesale',
      locale: 'en-GB',
      tax_number: 'GB123456789',
      tax_number_type: 'vat',
    });
    const { data } = await store.api.POST('/v1/customers', { body });
    expect(data!.data).toMatchObject(body);
  });

  test('records customer.created with the calling key as actor', async () => {
    const customer = await createCustomer(store.api);
    const [event] = await eventsFor(customer.id);
    expect(event).toMatchObject({
      type: 'customer.created',
      resource_type: 'customer',
      actor_type: 'api_key',
      actor_id: store.keys.secret_test.id,
    });
  });

  test('missing required fields answer validation_error listing each', async () => {
    const { error, response } = await store.api.POST('/v1/customers', { body: {} as never });
    expect(response.status).toBe(400);
    expect(error!.error.code).toBe('validation_error');
    expect(error!.error.details!.map((d) => d.field).sort()).toEqual(['email', 'first_name', 'last_name']);
  });

  test.each([
    ['first_name', { first_name: 'x'.repeat(101) }],
    ['first_name', { first_name: '' }],
    ['last_name', { last_name: '   ' }],
    ['email', { email: 'not-an-email' }],
    ['email', { email: `${'a'.repeat(250)}@example.com` }],
    ['phone', { phone: '1'.repeat(31) }],
    ['company', { company: 'c'.repeat(256) }],
    ['tags', { tags: Array.from({ length: 26 }, (_, i) => `tag${i}`) }],
    ['tags[0]', { tags: ['t'.repeat(101)] }],
    ['metadata', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
    ['locale', { locale: 'english-please' }],
    ['locale', { locale: 'en-GB-oxendict' }],
    ['tax_number', { tax_number: 'x'.repeat(51) }],
    ['tax_number_type', { tax_number_type: 'ssn' }],
    ['active_price_key', { active_price_key: 'k'.repeat(51) }],
    ['status', { status: 'banned' }],
  ])('an invalid %s answers 400 invalid_request naming it', async (field, overrides) => {
    const { error, response } = await store.api.POST('/v1/customers', { body: buildCustomer(overrides as never) });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('accepts the limits exactly: 25 tags of 100 characters, 50 metadata keys, 100-character names', async () => {
    const { response } = await store.api.POST('/v1/customers', {
      body: buildCustomer({
        first_name: 'f'.repeat(100),
        tags: Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(100, 't')),
        metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])),
      }),
    });
    expect(response.status).toBe(201);
  });

  test('concurrent creates with one email make one customer; the rest answer 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.api.POST('/v1/customers', {
          body: buildCustomer({ email: i % 2 ? 'Race@example.com' : 'race@EXAMPLE.com' }),
        }),
      ),
    );
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe('getCustomer', () => {
  test('fields narrows the answer to id and the named fields', async () => {
    const customer = await createCustomer(store.api);
    const { data } = await store.api.GET('/v1/customers/{id}', {
      params: { path: { id: customer.id }, query: { fields: ['email', 'nope'] } },
    });
    expect(data!.data).toEqual({ id: customer.id, email: customer.email });
  });

  test('an expand value other than addresses answers 400 with field expand', async () => {
    const customer = await createCustomer(store.api);
    const { error, response } = await store.api.GET('/v1/customers/{id}', {
      params: { path: { id: customer.id }, query: { expand: ['orders' as never] } },
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'expand' });
  });

  test("another project's customer answers 404", async () => {
    const other = await createProject(store.app);
    const theirs = await createCustomer(store.app.client(other.keys.secret_test.token));
    expect((await store.api.GET('/v1/customers/{id}', byId(theirs.id))).response.status).toBe(404);
  });

  test('a publishable key cannot read customers (403 forbidden)', async () => {
    const customer = await createCustomer(store.api);
    const { error } = await store.app
      .client(store.keys.publishable_test.token)
      .GET('/v1/customers/{id}', byId(customer.id));
    expect(error!.error.code).toBe('forbidden');
  });
});

describe('updateCustomer', () => {
  test('changes only the fields sent, clears nullable fields with null, replaces tags, and records the changes', async () => {
    const customer = await createCustomer(store.api, { phone: '+1 555 0100', tags: ['a', 'b'], company: 'Initech' });
    const { data, response } = await store.api.PATCH('/v1/customers/{id}', {
      ...byId(customer.id),
      body: { first_name: 'Sam', phone: null, tags: ['c'] },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      first_name: 'Sam',
      phone: null,
      tags: ['c'],
      company: 'Initech',
      last_name: customer.last_name,
    });
    const events = await eventsFor(customer.id);
    expect(events.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
    expect(events[1].metadata.changes).toEqual({
      first_name: { from: 'Alex', to: 'Sam' },
      phone: { from: '+1 555 0100', to: null },
      tags: { from: ['a', 'b'], to: ['c'] },
    });
  });

  test('a request that changes nothing records no event', async () => {
    const customer = await createCustomer(store.api);
    const unchanged = await store.api.PATCH('/v1/customers/{id}', {
      ...byId(customer.id),
      body: { first_name: customer.first_name },
    });
    // Answered 200 with the customer as it was (a failed request would record no event either).
    expect(unchanged.response.status).toBe(200);
    expect(unchanged.data!.data).toEqual(customer);
    expect((await eventsFor(customer.id)).map((e) => e.type)).toEqual(['customer.created']);
  });

  test("another customer's email answers 409; the same email in another case for itself is fine", async () => {
    const a = await createCustomer(store.api);
    const b = await createCustomer(store.api);
    const taken = await store.api.PATCH('/v1/customers/{id}', {
      ...byId(b.id),
      body: { email: a.email.toUpperCase() },
    });
    expect(taken.response.status).toBe(409);
    expect(taken.error!.error).toMatchObject({ code: 'conflict', field: 'email' });
    const own = await store.api.PATCH('/v1/customers/{id}', { ...byId(a.id), body: { email: a.email.toUpperCase() } });
    expect(own.response.status).toBe(200);
    expect(own.data!.data.email).toBe(a.email.toUpperCase());
  });

  test('an empty body answers 400; an unknown customer 404', async () => {
    const customer = await createCustomer(store.api);
    expect((await store.api.PATCH('/v1/customers/{id}', { ...byId(customer.id), body: {} })).response.status).toBe(400);
    expect(
      (await store.api.PATCH('/v1/customers/{id}', { ...byId('cus_nope'), body: { first_name: 'X' } })).response.status,
    ).toBe(404);
  });
});

describe('deleteCustomer', () => {
  test('hides the customer from every query and records customer.deleted', async () => {
    const customer = await createCustomer(store.api, { last_name: 'Vanishing' });
    expect((await store.api.DELETE('/v1/customers/{id}', byId(customer.id))).response.status).toBe(204);
    const list = await store.api.GET('/v1/customers', { params: { query: { search: 'Vanishing' } } });
    expect(list.data!.data).toEqual([]);
    expect((await store.api.GET('/v1/customers/{id}/addresses', byId(customer.id))).response.status).toBe(404);
    expect((await store.api.GET('/v1/customers/{id}/notes', byId(customer.id))).response.status).toBe(404);
    expect(
      (await store.api.PATCH('/v1/customers/{id}', { ...byId(customer.id), body: { first_name: 'Back' } })).response
        .status,
    ).toBe(404);
    expect((await store.api.DELETE('/v1/customers/{id}', byId(customer.id))).response.status).toBe(404);
    expect((await eventsFor(customer.id)).map((e) => e.type)).toEqual(['customer.created', 'customer.deleted']);
  });
});

describe('purge-deleted-customers job', () => {
  test('after 30 days removes the customer, addresses and notes, and redacts the values in its events', async () => {
    const old = await createCustomer(store.api, { first_name: 'Olga' });
    const recent = await createCustomer(store.api);
    expect(
      (
        await store.api.POST('/v1/customers/{id}/addresses', {
          ...byId(old.id),
          body: { line1: 'x', city: 'y', country: 'DE' },
        })
      ).response.status,
    ).toBe(201);
    expect(
      (await store.api.POST('/v1/customers/{id}/notes', { ...byId(old.id), body: { content: 'secret' } })).response
        .status,
    ).toBe(201);
    expect(
      (await store.api.PATCH('/v1/customers/{id}', { ...byId(old.id), body: { first_name: 'Olivia' } })).response
        .status,
    ).toBe(200);
    expect((await store.api.DELETE('/v1/customers/{id}', byId(old.id))).response.status).toBe(204);
    expect((await store.api.DELETE('/v1/customers/{id}', byId(recent.id))).response.status).toBe(204);
    const day = 24 * 3600 * 1000;
    await store.app.deps.db.customer.update({
      where: { id: old.id },
      data: { deletedAt: new Date(Date.now() - 31 * day) },
    });
    await store.app.deps.db.customer.update({
      where: { id: recent.id },
      data: { deletedAt: new Date(Date.now() - 29 * day) },
    });

    expect(await purgeDeletedCustomers(store.app.deps.db)).toBe(1);
    expect(await store.app.deps.db.customer.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await store.app.deps.db.customerAddress.count({ where: { customerId: old.id } })).toBe(0);
    expect(await store.app.deps.db.customerNote.count({ where: { customerId: old.id } })).toBe(0);
    expect(await store.app.deps.db.customer.findUnique({ where: { id: recent.id } })).not.toBeNull();
    const updated = (await eventsFor(old.id)).find((e) => e.type === 'customer.updated')!;
    expect(updated.metadata.changes).toEqual({ first_name: { from: '[redacted]', to: '[redacted]' } });
    expect(JSON.stringify(await eventsFor(old.id))).not.toMatch(/Olga|Olivia/);
  });
});
