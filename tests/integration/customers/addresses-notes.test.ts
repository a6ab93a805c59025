import { describe, expect, test } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

type AddressCreate = components['schemas']['CustomerAddressCreate'];

const store = useStore();

const address = (overrides: Partial<AddressCreate> = {}): AddressCreate => ({
  line1: 'Main Street 1',
  city: 'Springfield',
  country: 'US',
  ...overrides,
});
const addAddress = async (customerId: string, overrides: Partial<AddressCreate> = {}) => {
  const { data, response } = await store.api.POST('/v1/customers/{id}/addresses', {
    params: { path: { id: customerId } },
    body: address(overrides),
  });
  expect(response.status).toBe(201);
  return data!.data;
};
const addresses = async (customerId: string) =>
  (await store.api.GET('/v1/customers/{id}/addresses', { params: { path: { id: customerId } } })).data!.data;

describe('customer addresses', () => {
  test('create keeps every field; optional ones default to null and is_default to false', async () => {
    const customer = await createCustomer(store.api);
    const created = await addAddress(customer.id);
    expect(created).toMatchObject({
      customer_id: customer.id,
      first_name: null,
      last_name: null,
      company: null,
      line1: 'Main Street 1',
      line2: null,
      city: 'Springfield',
      state: null,
      postal_code: null,
      country: 'US',
      phone: null,
      is_default: false,
    });
    expect(created.id).toMatch(/^addr_/);
    const full = await addAddress(customer.id, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      company: 'Analytical',
      line2: 'Floor 2',
      state: 'IL',
      postal_code: '62701',
      phone: '+1 217 555 0100',
    });
    expect(full).toMatchObject({ first_name: 'Ada', state: 'IL', postal_code: '62701' });
  });

  test('the list has the default first, then oldest first', async () => {
    const customer = await createCustomer(store.api);
    const a = await addAddress(customer.id, { city: 'A' });
    const b = await addAddress(customer.id, { city: 'B', is_default: true });
    const c = await addAddress(customer.id, { city: 'C' });
    expect((await addresses(customer.id)).map((x) => x.id)).toEqual([b.id, a.id, c.id]);
  });

  test('setting is_default on an update makes it the only default', async () => {
    const customer = await createCustomer(store.api);
    const a = await addAddress(customer.id, { is_default: true });
    const b = await addAddress(customer.id);
    const { data } = await store.api.PATCH('/v1/addresses/{id}', {
      params: { path: { id: b.id } },
      body: { is_default: true },
    });
    expect(data!.data.is_default).toBe(true);
    const all = await addresses(customer.id);
    expect(all.filter((x) => x.is_default).map((x) => x.id)).toEqual([b.id]);
    expect(all.find((x) => x.id === a.id)!.is_default).toBe(false);
  });

  test('concurrent requests each making a different address the default leave exactly one default', async () => {
    const customer = await createCustomer(store.api);
    const created = [];
    for (let i = 0; i < 8; i++) created.push(await addAddress(customer.id, { city: `City ${i}` }));
    const results = await Promise.all(
      created.map((a) =>
        store.api.PATCH('/v1/addresses/{id}', { params: { path: { id: a.id } }, body: { is_default: true } }),
      ),
    );
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect((await addresses(customer.id)).filter((a) => a.is_default)).toHaveLength(1);

    const concurrentCreates = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.api.POST('/v1/customers/{id}/addresses', {
          params: { path: { id: customer.id } },
          body: address({ city: `New ${i}`, is_default: true }),
        }),
      ),
    );
    expect(concurrentCreates.every((r) => r.response.status === 201)).toBe(true);
    expect((await addresses(customer.id)).filter((a) => a.is_default)).toHaveLength(1);
  });

  test('nullable fields are cleared with null; other fields stay', async () => {
    const customer = await createCustomer(store.api);
    const a = await addAddress(customer.id, { line2: 'Apt 4', state: 'CA', company: 'Acme', phone: '123' });
    const { data } = await store.api.PATCH('/v1/addresses/{id}', {
      params: { path: { id: a.id } },
      body: { line2: null, state: null, company: null, phone: null, city: 'Oakland' },
    });
    expect(data!.data).toMatchObject({
      line2: null,
      state: null,
      company: null,
      phone: null,
      city: 'Oakland',
      line1: 'Main Street 1',
    });
  });

  test('required fields and limits are validated', async () => {
    const customer = await createCustomer(store.api);
    const missing = await store.api.POST('/v1/customers/{id}/addresses', {
      params: { path: { id: customer.id } },
      body: {} as never,
    });
    expect(missing.error!.error.details!.map((d) => d.field).sort()).toEqual(['city', 'country', 'line1']);
    for (const [body, field] of [
      [{ country: 'de' }, 'country'],
      [{ country: 'DEU' }, 'country'],
      [{ line1: '' }, 'line1'],
      [{ postal_code: '1'.repeat(21) }, 'postal_code'],
      [{ state: '' }, 'state'],
      [{ first_name: 'x'.repeat(101) }, 'first_name'],
    ] as const) {
      const { error } = await store.api.POST('/v1/customers/{id}/addresses', {
        params: { path: { id: customer.id } },
        body: address(body as never),
      });
      expect(error!.error).toMatchObject({ code: 'invalid_request', field });
    }
    const a = await addAddress(customer.id);
    const cleared = await store.api.PATCH('/v1/addresses/{id}', {
      params: { path: { id: a.id } },
      body: { line1: null } as never,
    });
    expect(cleared.error!.error.field).toBe('line1');
  });

  test("delete removes it; unknown and other projects' addresses answer 404", async () => {
    const customer = await createCustomer(store.api);
    const a = await addAddress(customer.id);
    expect((await store.api.DELETE('/v1/addresses/{id}', { params: { path: { id: a.id } } })).response.status).toBe(
      204,
    );
    expect(await addresses(customer.id)).toEqual([]);
    const gone = await store.api.PATCH('/v1/addresses/{id}', { params: { path: { id: a.id } }, body: { city: 'X' } });
    expect(gone.error).toEqual({ error: { code: 'not_found', message: 'Address not found.' } });

    const other = await createProject(store.app);
    const theirApi = store.app.client(other.keys.secret_test.token);
    const theirCustomer = await createCustomer(theirApi);
    const theirs = await theirApi.POST('/v1/customers/{id}/addresses', {
      params: { path: { id: theirCustomer.id } },
      body: address(),
    });
    expect(
      (await store.api.DELETE('/v1/addresses/{id}', { params: { path: { id: theirs.data!.data.id } } })).response
        .status,
    ).toBe(404);
    expect(
      (
        await store.api.POST('/v1/customers/{id}/addresses', {
          params: { path: { id: theirCustomer.id } },
          body: address(),
        })
      ).response.status,
    ).toBe(404);
  });

  test('fields applies to the address list', async () => {
    const customer = await createCustomer(store.api);
    await addAddress(customer.id);
    const { data } = await store.api.GET('/v1/customers/{id}/addresses', {
      params: { path: { id: customer.id }, query: { fields: ['city'] } },
    });
    expect(Object.keys(data!.data[0]).sort()).toEqual(['city', 'id']);
  });
});

describe('customer notes', () => {
  test('the author is the calling key; the list is newest first', async () => {
    const customer = await createCustomer(store.api);
    const path = { params: { path: { id: customer.id } } };
    const first = await store.api.POST('/v1/customers/{id}/notes', { ...path, body: { content: 'First call.' } });
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({
      customer_id: customer.id,
      content: 'First call.',
      author_type: 'api_key',
      author_id: store.keys.secret_test.id,
    });
    const viaLive = await store.app
      .client(store.keys.secret_live.token)
      .POST('/v1/customers/{id}/notes', { ...path, body: { content: 'Second call.' } });
    expect(viaLive.data!.data.author_id).toBe(store.keys.secret_live.id);
    const { data } = await store.api.GET('/v1/customers/{id}/notes', path);
    expect(data!.data.map((n) => n.content)).toEqual(['Second call.', 'First call.']);
  });

  test('content must be 1-5000 characters', async () => {
    const customer = await createCustomer(store.api);
    const path = { params: { path: { id: customer.id } } };
    expect(
      (await store.api.POST('/v1/customers/{id}/notes', { ...path, body: { content: '' } })).error!.error.field,
    ).toBe('content');
    expect(
      (await store.api.POST('/v1/customers/{id}/notes', { ...path, body: { content: 'x'.repeat(5001) } })).error!.error
        .field,
    ).toBe('content');
    expect(
      (await store.api.POST('/v1/customers/{id}/notes', { ...path, body: { content: 'x'.repeat(5000) } })).response
        .status,
    ).toBe(201);
  });

  test('delete removes the note; a note of another customer or an unknown one answers 404', async () => {
    const a = await createCustomer(store.api);
    const b = await createCustomer(store.api);
    const note = (
      await store.api.POST('/v1/customers/{id}/notes', { params: { path: { id: a.id } }, body: { content: 'Hi' } })
    ).data!.data;
    const wrongCustomer = await store.api.DELETE('/v1/customers/{id}/notes/{note_id}', {
      params: { path: { id: b.id, note_id: note.id } },
    });
    expect(wrongCustomer.error).toEqual({ error: { code: 'not_found', message: 'Note not found.' } });
    expect(
      (
        await store.api.DELETE('/v1/customers/{id}/notes/{note_id}', {
          params: { path: { id: a.id, note_id: note.id } },
        })
      ).response.status,
    ).toBe(204);
    expect((await store.api.GET('/v1/customers/{id}/notes', { params: { path: { id: a.id } } })).data!.data).toEqual(
      [],
    );
    expect(
      (
        await store.api.DELETE('/v1/customers/{id}/notes/{note_id}', {
          params: { path: { id: a.id, note_id: note.id } },
        })
      ).response.status,
    ).toBe(404);
  });

  test('notes of an unknown customer answer 404', async () => {
    expect(
      (await store.api.GET('/v1/customers/{id}/notes', { params: { path: { id: 'cus_unknown' } } })).response.status,
    ).toBe(404);
    expect(
      (
        await store.api.POST('/v1/customers/{id}/notes', {
          params: { path: { id: 'cus_unknown' } },
          body: { content: 'x' },
        })
      ).response.status,
    ).toBe(404);
  });
});
