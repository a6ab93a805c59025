import { describe, expect, test } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import { createCompany } from '../../factories/company.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

type AddressCreate = components['schemas']['CompanyAddressCreate'];
type ContactCreate = components['schemas']['CompanyContactCreate'];

const store = useStore();
const addAddress = (companyId: string, body: Partial<AddressCreate> = {}) =>
  store.api.POST('/v1/companies/{id}/addresses', {
    params: { path: { id: companyId } },
    body: { line1: 'Hafenstrasse 1', city: 'Hamburg', country: 'DE', ...body },
  });
const addContact = (companyId: string, body: Partial<ContactCreate> = {}) =>
  store.api.POST('/v1/companies/{id}/contacts', {
    params: { path: { id: companyId } },
    body: { name: 'Pat Buyer', ...body },
  });
const read = async (id: string) =>
  (
    await store.api.GET('/v1/companies/{id}', {
      params: { path: { id }, query: { expand: ['addresses', 'contacts'] } },
    })
  ).data!.data;

describe('a company with two addresses (second default) and two contacts (second primary)', () => {
  test('read back with counts 2/2, the default and primary first', async () => {
    const company = await createCompany(store.api, { name: 'Two By Two' });
    const a1 = (await addAddress(company.id, { label: 'Office', city: 'Berlin' })).data!.data;
    const a2 = (await addAddress(company.id, { label: 'Warehouse', is_default: true })).data!.data;
    const c1 = (await addContact(company.id, { name: 'First Contact' })).data!.data;
    const c2 = (await addContact(company.id, { name: 'Second Contact', is_primary: true })).data!.data;
    const back = await read(company.id);
    expect(back).toMatchObject({ address_count: 2, contact_count: 2 });
    expect(back.addresses!.map((a) => [a.id, a.is_default])).toEqual([
      [a2.id, true],
      [a1.id, false],
    ]);
    expect(back.contacts!.map((c) => [c.id, c.is_primary])).toEqual([
      [c2.id, true],
      [c1.id, false],
    ]);
    const addresses = (await store.api.GET('/v1/companies/{id}/addresses', byId(company.id))).data!.data;
    expect(addresses.map((a) => a.id)).toEqual([a2.id, a1.id]);
    const contacts = (await store.api.GET('/v1/companies/{id}/contacts', byId(company.id))).data!.data;
    expect(contacts.map((c) => c.id)).toEqual([c2.id, c1.id]);
  });
});

describe('company addresses', () => {
  test('create returns the create fields plus id, company_id and timestamps; optional fields read back as null', async () => {
    const company = await createCompany(store.api);
    const { data, response } = await addAddress(company.id, {
      label: 'HQ',
      first_name: 'Ida',
      postal_code: '20457',
      phone: '+49 40 1',
    });
    expect(response.status).toBe(201);
    expect(data!.data).toEqual({
      id: expect.stringMatching(/^caddr_[0-9a-z]{26}$/),
      company_id: company.id,
      label: 'HQ',
      first_name: 'Ida',
      last_name: null,
      line1: 'Hafenstrasse 1',
      line2: null,
      city: 'Hamburg',
      state: null,
      postal_code: '20457',
      country: 'DE',
      phone: '+49 40 1',
      is_default: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  test.each([
    ['line1', { line1: '' }],
    ['city', { city: ' ' }],
    ['country', { country: 'de' }],
    ['country', { country: 'DEU' }],
    ['label', { label: 'l'.repeat(101) }],
    ['postal_code', { postal_code: 'p'.repeat(21) }],
    ['is_default', { is_default: 'yes' }],
  ])('an invalid %s is 400 naming it', async (field, body) => {
    const company = await createCompany(store.api);
    const { error, response } = await addAddress(company.id, body as never);
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('line1, city and country are required', async () => {
    const company = await createCompany(store.api);
    const { error } = await store.api.POST('/v1/companies/{id}/addresses', {
      params: { path: { id: company.id } },
      body: {} as never,
    });
    expect(error!.error.code).toBe('validation_error');
    expect(error!.error.details!.map((d) => d.field).sort()).toEqual(['city', 'country', 'line1']);
  });

  test('PATCH applies the fields sent, clears nullable ones with null; is_default true moves the default', async () => {
    const company = await createCompany(store.api);
    const first = (await addAddress(company.id, { is_default: true, line2: 'Tor 2' })).data!.data;
    const second = (await addAddress(company.id)).data!.data;
    const patched = await store.api.PATCH('/v1/companies/{id}/addresses/{address_id}', {
      params: { path: { id: company.id, address_id: second.id } },
      body: { is_default: true, city: 'Kiel', label: 'North' },
    });
    expect(patched.data!.data).toMatchObject({
      is_default: true,
      city: 'Kiel',
      label: 'North',
      line1: 'Hafenstrasse 1',
    });
    const cleared = await store.api.PATCH('/v1/companies/{id}/addresses/{address_id}', {
      params: { path: { id: company.id, address_id: first.id } },
      body: { line2: null },
    });
    expect(cleared.data!.data).toMatchObject({ line2: null, is_default: false });
    expect((await read(company.id)).addresses!.map((a) => a.id)).toEqual([second.id, first.id]);
    const unset = await store.api.PATCH('/v1/companies/{id}/addresses/{address_id}', {
      params: { path: { id: company.id, address_id: second.id } },
      body: { is_default: false },
    });
    expect(unset.data!.data.is_default).toBe(false);
  });

  test('DELETE 204 and the count drops; a deleted default leaves none; addresses of another company are 404', async () => {
    const company = await createCompany(store.api);
    const other = await createCompany(store.api);
    const address = (await addAddress(company.id, { is_default: true })).data!.data;
    const foreign = (await addAddress(other.id)).data!.data;
    for (const [companyId, addressId] of [
      [company.id, foreign.id],
      [company.id, 'caddr_unknown'],
      ['comp_unknown', address.id],
    ]) {
      const patched = await store.api.PATCH('/v1/companies/{id}/addresses/{address_id}', {
        params: { path: { id: companyId, address_id: addressId } },
        body: { city: 'X' },
      });
      expect(patched.response.status).toBe(404);
      const deleted = await store.api.DELETE('/v1/companies/{id}/addresses/{address_id}', {
        params: { path: { id: companyId, address_id: addressId } },
      });
      expect(deleted.response.status).toBe(404);
    }
    expect(
      (
        await store.api.DELETE('/v1/companies/{id}/addresses/{address_id}', {
          params: { path: { id: company.id, address_id: address.id } },
        })
      ).response.status,
    ).toBe(204);
    expect(await read(company.id)).toMatchObject({ address_count: 0, addresses: [] });
    expect((await read(other.id)).address_count).toBe(1);
  });

  test('an unknown or deleted company is 404 for list and create', async () => {
    const company = await createCompany(store.api);
    await store.api.DELETE('/v1/companies/{id}', byId(company.id));
    for (const id of ['comp_unknown', company.id]) {
      expect((await store.api.GET('/v1/companies/{id}/addresses', byId(id))).error).toEqual({
        error: { code: 'not_found', message: 'Company not found.' },
      });
      expect((await addAddress(id)).response.status).toBe(404);
      expect((await addContact(id)).response.status).toBe(404);
    }
  });

  test('concurrent creates each asking to be the default: one default remains, the count is exact', async () => {
    const company = await createCompany(store.api);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => addAddress(company.id, { label: `L${i}`, is_default: true })),
    );
    expect(answers.map((a) => a.response.status)).toEqual(Array(10).fill(201));
    const back = await read(company.id);
    expect(back.address_count).toBe(10);
    expect(back.addresses!.filter((a) => a.is_default)).toHaveLength(1);
    expect(back.addresses![0].is_default).toBe(true);
  });

  test('writes record company.updated with the changed counts and addresses', async () => {
    const company = await createCompany(store.api);
    const address = (await addAddress(company.id)).data!.data;
    await store.api.PATCH('/v1/companies/{id}/addresses/{address_id}', {
      params: { path: { id: company.id, address_id: address.id } },
      body: { city: 'Lübeck' },
    });
    const events = (
      await store.api.GET('/v1/events', {
        params: { query: { resource_type: 'company', resource_id: company.id, order: 'asc' } },
      })
    ).data!.data;
    expect(events.map((e) => e.type)).toEqual(['company.created', 'company.updated', 'company.updated']);
    expect(Object.keys(events[1].metadata.changes!).sort()).toEqual(['address_count', 'addresses']);
    expect(events[1].metadata.changes!.address_count).toEqual({ from: 0, to: 1 });
    expect(Object.keys(events[2].metadata.changes!)).toEqual(['addresses']);
  });
});

describe('company contacts', () => {
  test('create returns the create fields plus id, company_id and timestamps', async () => {
    const company = await createCompany(store.api);
    const { data, response } = await addContact(company.id, {
      name: 'Petra Schmidt',
      email: 'petra@acme.example',
      role: 'Purchasing',
    });
    expect(response.status).toBe(201);
    expect(data!.data).toEqual({
      id: expect.stringMatching(/^ccon_[0-9a-z]{26}$/),
      company_id: company.id,
      name: 'Petra Schmidt',
      email: 'petra@acme.example',
      phone: null,
      role: 'Purchasing',
      is_primary: false,
      customer_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  test.each([
    ['name', { name: '' }],
    ['email', { email: 'petra' }],
    ['role', { role: 'r'.repeat(101) }],
    ['phone', { phone: '9'.repeat(31) }],
    // An empty id names no customer (it was taken for "none" and failed on the link: 500).
    ['customer_id', { customer_id: '' }],
    ['customer_id', { customer_id: 'cus_00000000000000000000000000' }],
  ])('an invalid %s is 400 naming it', async (field, body) => {
    const company = await createCompany(store.api);
    const { error } = await addContact(company.id, body);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('PATCH with an empty customer_id is 400 naming it and changes nothing', async () => {
    const company = await createCompany(store.api);
    const contact = (await addContact(company.id, { name: 'Petra' })).data!.data;
    const { error } = await store.api.PATCH('/v1/companies/{id}/contacts/{contact_id}', {
      params: { path: { id: company.id, contact_id: contact.id } },
      body: { customer_id: '' },
    });
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    expect((await read(company.id)).contacts).toEqual([contact]);
  });

  test('PATCH: is_primary true makes it the only primary; nullable fields clear with null; DELETE drops the count', async () => {
    const company = await createCompany(store.api);
    const first = (await addContact(company.id, { name: 'One', is_primary: true, phone: '+1 1' })).data!.data;
    const second = (await addContact(company.id, { name: 'Two' })).data!.data;
    const patch = (id: string, body: object) =>
      store.api.PATCH('/v1/companies/{id}/contacts/{contact_id}', {
        params: { path: { id: company.id, contact_id: id } },
        body,
      });
    expect((await patch(second.id, { is_primary: true, role: 'Boss' })).data!.data).toMatchObject({
      is_primary: true,
      role: 'Boss',
    });
    expect((await patch(first.id, { phone: null })).data!.data).toMatchObject({ phone: null, is_primary: false });
    expect((await read(company.id)).contacts!.map((c) => c.id)).toEqual([second.id, first.id]);
    expect((await patch('ccon_unknown', { name: 'x' })).error).toEqual({
      error: { code: 'not_found', message: 'Contact not found.' },
    });
    expect(
      (
        await store.api.DELETE('/v1/companies/{id}/contacts/{contact_id}', {
          params: { path: { id: company.id, contact_id: second.id } },
        })
      ).response.status,
    ).toBe(204);
    expect(await read(company.id)).toMatchObject({ contact_count: 1 });
    expect(
      (
        await store.api.DELETE('/v1/companies/{id}/contacts/{contact_id}', {
          params: { path: { id: company.id, contact_id: second.id } },
        })
      ).response.status,
    ).toBe(404);
  });

  test('concurrent primaries: one primary remains, the count is exact', async () => {
    const company = await createCompany(store.api);
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => addContact(company.id, { name: `C${i}` })));
    const ids = created.map((c) => c.data!.data.id);
    await Promise.all([
      ...ids.map((id) =>
        store.api.PATCH('/v1/companies/{id}/contacts/{contact_id}', {
          params: { path: { id: company.id, contact_id: id } },
          body: { is_primary: true },
        }),
      ),
      ...Array.from({ length: 5 }, (_, i) => addContact(company.id, { name: `P${i}`, is_primary: true })),
    ]);
    const back = await read(company.id);
    expect(back.contact_count).toBe(10);
    expect(back.contacts!.filter((c) => c.is_primary)).toHaveLength(1);
  });

  test("another project's company is 404", async () => {
    const other = await createProject(store.app);
    const foreign = await createCompany(store.app.client(other.keys.secret_test.token));
    expect((await store.api.GET('/v1/companies/{id}/contacts', byId(foreign.id))).response.status).toBe(404);
  });
});
