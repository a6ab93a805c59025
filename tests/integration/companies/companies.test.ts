import { describe, expect, test } from '@jest/globals';
import type { operations } from '@commerce-api/sdk';
import { buildCompany, createCompany } from '../../factories/company.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

type ListQuery = NonNullable<operations['listCompanies']['parameters']['query']>;

const store = useStore();
const eventsOf = async (id: string) =>
  (
    await store.api.GET('/v1/events', {
      params: { query: { resource_type: 'company', resource_id: id, order: 'asc' } },
    })
  ).data!.data;

describe('createCompany', () => {
  test('defaults: supplier, handle from the name, nullable fields null, counts 0; records company.created', async () => {
    const company = await createCompany(store.api, { name: 'Acme Textiles GmbH' });
    expect(company).toEqual({
      id: expect.stringMatching(/^comp_[0-9a-z]{26}$/),
      type: 'supplier',
      name: 'Acme Textiles GmbH',
      handle: 'acme-textiles-gmbh',
      email: null,
      phone: null,
      website: null,
      tax_number: null,
      tax_number_type: null,
      currency: null,
      payment_terms: null,
      note: null,
      external_id: null,
      active_price_key: null,
      address_count: 0,
      contact_count: 0,
      metadata: {},
      created_at: expect.any(String),
      updated_at: company.created_at,
    });
    const events = await eventsOf(company.id);
    expect(events.map((e) => [e.type, e.summary, e.actor_type])).toEqual([
      ['company.created', 'Company "Acme Textiles GmbH" created', 'api_key'],
    ]);
  });

  test('every field is stored and returned', async () => {
    const body = {
      name: 'Globex',
      type: 'both',
      handle: 'globex-corp',
      email: 'buy@globex.example',
      phone: '+1 555 0100',
      website: 'https://globex.example/about',
      tax_number: 'US-12-3456789',
      tax_number_type: 'ein',
      currency: 'USD',
      payment_terms: 'net_60',
      note: 'n'.repeat(5000),
      external_id: 'ERP-1',
      active_price_key: 'wholesale',
      metadata: { tier: 'gold' },
    } as const;
    const company = await createCompany(store.api, body);
    expect(company).toMatchObject({ ...body, address_count: 0, contact_count: 0 });
  });

  test('generated handles are unique per project (-2); a sent handle that is taken is 409; deleted companies free theirs', async () => {
    expect((await createCompany(store.api, { name: 'Initech' })).handle).toBe('initech');
    expect((await createCompany(store.api, { name: 'INITECH' })).handle).toBe('initech-2');
    const taken = await store.api.POST('/v1/companies', { body: buildCompany({ handle: 'initech' }) });
    expect(taken.response.status).toBe(409);
    expect(taken.error).toEqual({
      error: { code: 'conflict', message: 'Another company already has this handle.', field: 'handle' },
    });
    const gone = await createCompany(store.api, { handle: 'gone-soon' });
    await store.api.DELETE('/v1/companies/{id}', byId(gone.id));
    expect((await createCompany(store.api, { handle: 'gone-soon' })).handle).toBe('gone-soon');
  });

  test.each([
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(256) }],
    ['type', { type: 'partner' }],
    ['handle', { handle: 'Not A Handle' }],
    ['email', { email: 'not-an-email' }],
    ['email', { email: `${'a'.repeat(250)}@x.example` }],
    ['website', { website: 'acme.example' }],
    ['website', { website: 'ftp://acme.example' }],
    ['website', { website: 'mailto:sales@acme.example' }],
    ['currency', { currency: 'usd' }],
    ['currency', { currency: 'EURO' }],
    ['currency', { currency: 'XYZ' }],
    ['tax_number_type', { tax_number_type: 'ssn' }],
    ['tax_number', { tax_number: 't'.repeat(51) }],
    ['payment_terms', { payment_terms: 'net_45' }],
    ['phone', { phone: '1'.repeat(31) }],
    ['note', { note: 'n'.repeat(5001) }],
    ['external_id', { external_id: 'e'.repeat(256) }],
    ['metadata', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
    ['address_count', { address_count: 2 }],
  ])('an invalid %s answers 400 naming it', async (field, overrides) => {
    const { error, response } = await store.api.POST('/v1/companies', {
      body: { ...buildCompany(), ...overrides } as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('currency must be an ISO 4217 code; website an http(s) URL', async () => {
    const currency = await store.api.POST('/v1/companies', { body: buildCompany({ currency: 'XYZ' }) });
    expect(currency.error!.error).toEqual({
      code: 'invalid_request',
      message: 'currency XYZ is not an ISO 4217 currency code; use one such as EUR or USD.',
      field: 'currency',
    });
    const website = await store.api.POST('/v1/companies', { body: buildCompany({ website: 'ftp://files.example' }) });
    expect(website.error!.error).toEqual({
      code: 'invalid_request',
      message: 'website must be an http or https URL, e.g. https://acme.example.',
      field: 'website',
    });
    expect((await createCompany(store.api, { currency: 'CHF', website: 'http://plain.example' })).currency).toBe('CHF');
  });

  test('currency takes the ISO 4217 codes price lists and purchase orders take (VED, fund codes such as CHE)', async () => {
    for (const currency of ['VED', 'CHE', 'USN']) {
      const { error, response } = await store.api.POST('/v1/companies', { body: buildCompany({ currency }) });
      expect([currency, response.status, error]).toEqual([currency, 201, undefined]);
      const list = await store.api.POST('/v1/price-lists', {
        body: { slug: `in-${currency.toLowerCase()}`, name: currency, currency },
      });
      expect([currency, list.response.status]).toEqual([currency, 201]);
    }
  });

  test('malformed JSON is 400; publishable keys cannot read or write companies (403); no key 401', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/companies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.keys.secret_test.token}`, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
    const publishable = store.app.client(store.keys.publishable_test.token);
    expect((await publishable.GET('/v1/companies')).response.status).toBe(403);
    expect((await publishable.POST('/v1/companies', { body: buildCompany() })).response.status).toBe(403);
    expect((await store.app.client().GET('/v1/companies')).response.status).toBe(401);
  });
});

describe('getCompany', () => {
  test('404 for unknown, deleted and foreign companies', async () => {
    const deleted = await createCompany(store.api);
    await store.api.DELETE('/v1/companies/{id}', byId(deleted.id));
    const other = await createProject(store.app);
    const foreign = await createCompany(store.app.client(other.keys.secret_test.token));
    for (const id of ['comp_unknown', deleted.id, foreign.id]) {
      const { error, response } = await store.api.GET('/v1/companies/{id}', byId(id));
      expect(response.status).toBe(404);
      expect(error).toEqual({ error: { code: 'not_found', message: 'Company not found.' } });
    }
  });

  test('fields narrows; addresses and contacts only when expanded; other expand values are 400', async () => {
    const company = await createCompany(store.api, { name: 'Narrow Co' });
    const narrow = await store.api.GET('/v1/companies/{id}', {
      params: { path: { id: company.id }, query: { fields: ['name', 'address_count'] } },
    });
    expect(narrow.data!.data).toEqual({ id: company.id, name: 'Narrow Co', address_count: 0 });
    const plain = (await store.api.GET('/v1/companies/{id}', byId(company.id))).data!.data;
    expect(plain).not.toHaveProperty('addresses');
    expect(plain).not.toHaveProperty('contacts');
    const expanded = (
      await store.api.GET('/v1/companies/{id}', {
        params: { path: { id: company.id }, query: { expand: ['addresses', 'contacts'] } },
      })
    ).data!.data;
    expect(expanded).toMatchObject({ addresses: [], contacts: [] });
    const bad = await store.api.GET('/v1/companies/{id}', {
      params: { path: { id: company.id }, query: { expand: ['members' as never] } },
    });
    expect(bad.error!.error.field).toBe('expand');
  });
});

describe('updateCompany', () => {
  const patch = (id: string, body: Record<string, unknown>) =>
    store.api.PATCH('/v1/companies/{id}', { params: { path: { id } }, body: body as never });

  test('applies the fields sent, clears nullable ones with null, replaces metadata; records company.updated with the changes', async () => {
    const company = await createCompany(store.api, {
      name: 'Before Ltd',
      email: 'a@before.example',
      note: 'keep me?',
      metadata: { a: 1, b: 2 },
    });
    const { data, response } = await patch(company.id, {
      name: 'After Ltd',
      type: 'customer',
      note: null,
      payment_terms: 'net_15',
      metadata: { c: 3 },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      name: 'After Ltd',
      handle: 'before-ltd',
      type: 'customer',
      note: null,
      email: 'a@before.example',
      payment_terms: 'net_15',
      metadata: { c: 3 },
    });
    const events = await eventsOf(company.id);
    expect(events.map((e) => e.type)).toEqual(['company.created', 'company.updated']);
    expect(events[1].metadata.changes).toEqual({
      type: { from: 'supplier', to: 'customer' },
      name: { from: 'Before Ltd', to: 'After Ltd' },
      payment_terms: { from: null, to: 'net_15' },
      note: { from: 'keep me?', to: null },
      metadata: { from: { a: 1, b: 2 }, to: { c: 3 } },
    });
  });

  test('a PATCH that changes nothing writes nothing and records no event', async () => {
    const company = await createCompany(store.api, { name: 'Steady', currency: 'EUR' });
    const { data } = await patch(company.id, { name: 'Steady', currency: 'EUR' });
    expect(data!.data.updated_at).toBe(company.updated_at);
    expect((await eventsOf(company.id)).map((e) => e.type)).toEqual(['company.created']);
  });

  test('handle changes only when sent; 409 when taken; invalid values are 400; unknown company 404', async () => {
    const company = await createCompany(store.api, { name: 'Handle Keeper' });
    await createCompany(store.api, { handle: 'occupied-co' });
    expect((await patch(company.id, { handle: 'occupied-co' })).response.status).toBe(409);
    expect((await patch(company.id, { handle: 'fresh-co' })).data!.data.handle).toBe('fresh-co');
    expect((await patch(company.id, { currency: 'ABC' })).error!.error.field).toBe('currency');
    expect((await patch(company.id, { website: 'gopher://old.example' })).error!.error.field).toBe('website');
    expect((await patch(company.id, {})).error!.error.message).toBe('Send at least one field.');
    expect((await patch('comp_unknown', { name: 'x' })).response.status).toBe(404);
  });
});

describe('deleteCompany', () => {
  test('soft delete: 204, gone from reads and lists, handle freed, company.deleted recorded; again 404', async () => {
    const company = await createCompany(store.api, { name: 'Vanishing Inc' });
    expect((await store.api.DELETE('/v1/companies/{id}', byId(company.id))).response.status).toBe(204);
    expect((await store.api.GET('/v1/companies/{id}', byId(company.id))).response.status).toBe(404);
    expect((await store.api.GET('/v1/companies', { params: { query: { search: 'vanishing' } } })).data!.data).toEqual(
      [],
    );
    expect((await createCompany(store.api, { name: 'Vanishing Inc' })).handle).toBe('vanishing-inc');
    expect((await eventsOf(company.id)).map((e) => e.type)).toEqual(['company.created', 'company.deleted']);
    expect((await store.api.DELETE('/v1/companies/{id}', byId(company.id))).response.status).toBe(404);
  });
});

describe('listCompanies', () => {
  test('newest first by default; order; sort by name case-insensitively; search; type; limit 1-250 with a cursor', async () => {
    const other = await createProject(store.app);
    const api = store.app.client(other.keys.secret_test.token);
    const rows = [
      ['bravo Foods', 'customer'],
      ['Alpha_Supply', 'supplier'],
      ['charlie 50%', 'both'],
    ] as const;
    const created = [];
    for (const [name, type] of rows) created.push(await createCompany(api, { name, type }));
    const base = Date.now() - 60_000;
    for (const [i, company] of created.entries()) {
      await store.app.deps.db.company.update({
        where: { id: company.id },
        data: { createdAt: new Date(base + i * 1000), updatedAt: new Date(base + i * 1000) },
      });
    }
    const names = async (query: ListQuery) =>
      (await api.GET('/v1/companies', { params: { query } })).data!.data.map((c) => c.name);
    expect(await names({})).toEqual(['charlie 50%', 'Alpha_Supply', 'bravo Foods']);
    expect(await names({ order: 'asc' })).toEqual(['bravo Foods', 'Alpha_Supply', 'charlie 50%']);
    expect(await names({ sort: 'name', order: 'asc' })).toEqual(['Alpha_Supply', 'bravo Foods', 'charlie 50%']);
    await api.PATCH('/v1/companies/{id}', { params: { path: { id: created[0].id } }, body: { note: 'touched' } });
    expect((await names({ sort: 'updated_at' }))[0]).toBe('bravo Foods');
    expect(await names({ search: 'FOOD' })).toEqual(['bravo Foods']);
    expect(await names({ search: '50%' })).toEqual(['charlie 50%']);
    expect(await names({ search: 'a_s' })).toEqual(['Alpha_Supply']);
    expect(await names({ type: 'both' })).toEqual(['charlie 50%']);
    expect(await names({ type: 'supplier', search: 'alpha' })).toEqual(['Alpha_Supply']);

    const first = (await api.GET('/v1/companies', { params: { query: { limit: 2 } } })).data!;
    expect(first.pagination).toMatchObject({ has_more: true, total: 3 });
    const second = (
      await api.GET('/v1/companies', { params: { query: { limit: 2, cursor: first.pagination.cursor! } } })
    ).data!;
    expect([...first.data, ...second.data].map((c) => c.id).sort()).toEqual(created.map((c) => c.id).sort());
    expect((await api.GET('/v1/companies', { params: { query: { limit: 250 } } })).response.status).toBe(200);
    for (const [query, field] of [
      [{ limit: 251 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ type: 'vendor' }, 'type'],
      [{ sort: 'email' }, 'sort'],
      [{ search: 's'.repeat(201) }, 'search'],
      [{ expand: ['owners'] }, 'expand'],
    ] as const) {
      const { error, response } = await api.GET('/v1/companies', { params: { query: query as never } });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe(field);
    }
  });

  test('each company carries address_count and contact_count; expand inlines addresses and contacts; fields narrows', async () => {
    const company = await createCompany(store.api, { name: 'Counted Co' });
    await store.api.POST('/v1/companies/{id}/addresses', {
      params: { path: { id: company.id } },
      body: { line1: 'A 1', city: 'Bonn', country: 'DE' },
    });
    await store.api.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: company.id } },
      body: { name: 'Kim' },
    });
    await store.api.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: company.id } },
      body: { name: 'Lee' },
    });
    const [listed] = (
      await store.api.GET('/v1/companies', {
        params: { query: { search: 'counted co', expand: ['addresses', 'contacts'] } },
      })
    ).data!.data;
    expect(listed).toMatchObject({ address_count: 1, contact_count: 2 });
    expect(listed.addresses!.map((a) => a.city)).toEqual(['Bonn']);
    expect(listed.contacts!.map((c) => c.name)).toEqual(['Kim', 'Lee']);
    const narrow = (
      await store.api.GET('/v1/companies', { params: { query: { search: 'counted co', fields: ['contact_count'] } } })
    ).data!.data;
    expect(narrow).toEqual([{ id: company.id, contact_count: 2 }]);
  });
});
