import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { registerCustomer, signedIn, storefront, type AuthSession } from '../../factories/customer-auth.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

type AddressCreate = components['schemas']['CustomerAddressCreate'];

const store = useStore({ project: { domain: 'shop.example.com', domain_verified: true } });
const { app, api } = store;

let other: CreatedProject;
beforeAll(async () => {
  other = await createProject(app, { domain: 'other.example.com' });
});

const shop = () => storefront(app, store.keys.publishable_test.token);
const me = (session: AuthSession): CommerceClient =>
  signedIn(app, store.keys.publishable_test.token, session.access_token);
const berlin: AddressCreate = {
  first_name: 'Jane',
  last_name: 'Doe',
  line1: 'Friedrichstrasse 68',
  city: 'Berlin',
  postal_code: '10117',
  country: 'DE',
};

async function add(session: AuthSession, body: AddressCreate) {
  const { data, response } = await me(session).POST('/v1/me/addresses', { body });
  expect(response.status).toBe(201);
  return data!.data;
}

describe('createCurrentCustomerAddress', () => {
  test('at most 100 addresses per customer: the 101st answers 400 and is not written; after a delete one fits again', async () => {
    const session = await registerCustomer(shop());
    const rows = Array.from({ length: 99 }, (_, i) => ({
      id: `addr_cap${String(i).padStart(23, '0')}`,
      customerId: session.customer.id,
      line1: `Friedrichstrasse ${i + 1}`,
      city: 'Berlin',
      country: 'DE',
    }));
    await app.deps.db.customerAddress.createMany({ data: rows });
    const hundredth = await add(session, berlin);
    const refused = await me(session).POST('/v1/me/addresses', { body: berlin });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'A customer has at most 100 addresses; delete one before adding another.',
      },
    });
    expect(await app.deps.db.customerAddress.count({ where: { customerId: session.customer.id } })).toBe(100);
    expect((await me(session).DELETE('/v1/me/addresses/{id}', byId(hundredth.id))).response.status).toBe(204);
    await add(session, berlin);
  });

  test("adds to the customer's own address book, the one the merchant sees under /v1/customers/{id}/addresses", async () => {
    const session = await registerCustomer(shop());
    const address = await add(session, { ...berlin, phone: '+49 30 1234567' });
    expect(address).toMatchObject({
      ...berlin,
      customer_id: session.customer.id,
      company: null,
      line2: null,
      state: null,
      phone: '+49 30 1234567',
      is_default: false,
    });
    expect(address.id).toMatch(/^addr_[0-9a-z]{26}$/);
    const merchant = await api.GET('/v1/customers/{id}/addresses', byId(session.customer.id));
    expect(merchant.data!.data).toEqual([address]);
  });

  test('is_default true makes it the only default (the previous default stops being one), as the merchant operation does', async () => {
    const session = await registerCustomer(shop());
    const home = await add(session, { ...berlin, is_default: true });
    const office = await add(session, { ...berlin, line1: 'Unter den Linden 1', is_default: true });
    const { data } = await me(session).GET('/v1/me/addresses');
    expect(data!.data.map((a) => [a.id, a.is_default])).toEqual([
      [office.id, true],
      [home.id, false],
    ]);
  });

  test("the merchant operation's validation: an invalid field is 400 naming it, and nothing is written", async () => {
    const session = await registerCustomer(shop());
    const empty = await me(session).POST('/v1/me/addresses', { body: { ...berlin, line1: '' } });
    expect(empty.response.status).toBe(400);
    expect(empty.error!.error).toMatchObject({ code: 'invalid_request', field: 'line1' });
    const country = await me(session).POST('/v1/me/addresses', { body: { ...berlin, country: 'Germany' } });
    expect(country.response.status).toBe(400);
    expect(country.error!.error.field).toBe('country');
    const unknown = await fetch(`${app.baseUrl}/v1/me/addresses`, {
      method: 'POST',
      headers: {
        'X-API-Key': store.keys.publishable_test.token,
        Authorization: `Bearer ${session.access_token}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ ...berlin, customer_id: 'cus_01jd5p0a2c4e6g8j0l2n4q6s8u' }),
    });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error.field).toBe('customer_id');
    expect((await me(session).GET('/v1/me/addresses')).data!.data).toEqual([]);
  });

  test('an Idempotency-Key replays the first answer for the same customer and writes one address', async () => {
    const session = await registerCustomer(shop());
    const headers = { 'Idempotency-Key': `me-address-${session.customer.id}` };
    const first = await me(session).POST('/v1/me/addresses', { body: berlin, params: { header: headers } });
    const again = await me(session).POST('/v1/me/addresses', { body: berlin, params: { header: headers } });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.data).toEqual(first.data!.data);
    expect((await me(session).GET('/v1/me/addresses')).data!.data).toHaveLength(1);
  });
});

describe('listCurrentCustomerAddresses', () => {
  test("lists only the signed-in customer's addresses, the default first then oldest first", async () => {
    const [ana, ben] = [await registerCustomer(shop()), await registerCustomer(shop())];
    const first = await add(ana, berlin);
    const second = await add(ana, { ...berlin, line1: 'Unter den Linden 1' });
    const preferred = await add(ana, { ...berlin, line1: 'Kastanienallee 5', is_default: true });
    await add(ben, { ...berlin, line1: 'Bergmannstrasse 3' });
    // An address the merchant added for another customer of the store.
    const merchantMade = await api.POST('/v1/customers/{id}/addresses', { ...byId(ben.customer.id), body: berlin });
    expect(merchantMade.response.status).toBe(201);
    const { data } = await me(ana).GET('/v1/me/addresses');
    expect(data!.data.map((a) => a.id)).toEqual([preferred.id, first.id, second.id]);
    expect((await me(ben).GET('/v1/me/addresses')).data!.data).toHaveLength(2);
  });

  test('needs the access token (401 with the publishable key alone, or with a token of another store)', async () => {
    expect((await shop().GET('/v1/me/addresses')).response.status).toBe(401);
    const stranger = await registerCustomer(storefront(app, other.keys.publishable_test.token));
    const crossed = await signedIn(app, store.keys.publishable_test.token, stranger.access_token).GET(
      '/v1/me/addresses',
    );
    expect(crossed.response.status).toBe(401);
  });

  test('a customer deleted by the merchant after signing in gets 401: the session has ended', async () => {
    const session = await registerCustomer(shop());
    await add(session, berlin);
    expect((await api.DELETE('/v1/customers/{id}', byId(session.customer.id))).response.status).toBe(204);
    const answer = await me(session).GET('/v1/me/addresses');
    expect(answer.response.status).toBe(401);
    expect((await me(session).POST('/v1/me/addresses', { body: berlin })).response.status).toBe(401);
  });
});

describe('getCurrentCustomerAddress, updateCurrentCustomerAddress, deleteCurrentCustomerAddress', () => {
  test("another customer's address, of this store or another, answers 404 as one that names nothing, and stays as it was", async () => {
    const [ana, ben] = [await registerCustomer(shop()), await registerCustomer(shop())];
    const bens = await add(ben, { ...berlin, is_default: true });
    const stranger = await registerCustomer(storefront(app, other.keys.publishable_test.token));
    const strangers = (
      await signedIn(app, other.keys.publishable_test.token, stranger.access_token).POST('/v1/me/addresses', {
        body: berlin,
      })
    ).data!.data;
    const nothing = { error: { code: 'not_found', message: 'Address not found.' } };
    for (const id of [bens.id, strangers.id, 'addr_01jd5p1b3d5f7h9k1m3p5r7t9v']) {
      const read = await me(ana).GET('/v1/me/addresses/{id}', byId(id));
      const patched = await me(ana).PATCH('/v1/me/addresses/{id}', { ...byId(id), body: { line1: 'Hijacked 1' } });
      const deleted = await me(ana).DELETE('/v1/me/addresses/{id}', byId(id));
      expect([id, read.response.status, patched.response.status, deleted.response.status]).toEqual([id, 404, 404, 404]);
      expect([read.error, patched.error, deleted.error]).toEqual([nothing, nothing, nothing]);
    }
    expect((await me(ben).GET('/v1/me/addresses/{id}', byId(bens.id))).data!.data).toEqual(bens);
    const theirs = await signedIn(app, other.keys.publishable_test.token, stranger.access_token).GET(
      '/v1/me/addresses',
    );
    expect(theirs.data!.data).toEqual([strangers]);
  });

  test('PATCH applies the fields sent, null clears, is_default true makes it the only default; GET reads it back', async () => {
    const session = await registerCustomer(shop());
    const home = await add(session, { ...berlin, line2: '3. OG', is_default: true });
    const office = await add(session, { ...berlin, line1: 'Unter den Linden 1' });
    const patched = await me(session).PATCH('/v1/me/addresses/{id}', {
      ...byId(office.id),
      body: { line2: null, city: 'Potsdam', is_default: true },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.data).toMatchObject({ id: office.id, line2: null, city: 'Potsdam', is_default: true });
    expect((await me(session).GET('/v1/me/addresses/{id}', byId(home.id))).data!.data.is_default).toBe(false);
    expect((await me(session).GET('/v1/me/addresses/{id}', byId(office.id))).data!.data).toEqual(patched.data!.data);
    const empty = await me(session).PATCH('/v1/me/addresses/{id}', { ...byId(office.id), body: {} });
    expect(empty.response.status).toBe(400);
  });

  test('PATCH with If-Match: the current ETag applies the change, a stale one answers 412 and writes nothing', async () => {
    const session = await registerCustomer(shop());
    const address = await add(session, berlin);
    const read = await me(session).GET('/v1/me/addresses/{id}', byId(address.id));
    const etag = read.response.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const ok = await me(session).PATCH('/v1/me/addresses/{id}', {
      ...byId(address.id),
      params: { path: { id: address.id }, header: { 'If-Match': etag } },
      body: { city: 'Hamburg' },
    });
    expect(ok.response.status).toBe(200);
    const stale = await me(session).PATCH('/v1/me/addresses/{id}', {
      params: { path: { id: address.id }, header: { 'If-Match': etag } },
      body: { city: 'Munich' },
    });
    expect(stale.response.status).toBe(412);
    expect((await me(session).GET('/v1/me/addresses/{id}', byId(address.id))).data!.data.city).toBe('Hamburg');
  });

  test('DELETE removes one of the own addresses (204); deleting the default leaves none as default', async () => {
    const session = await registerCustomer(shop());
    const home = await add(session, { ...berlin, is_default: true });
    const office = await add(session, { ...berlin, line1: 'Unter den Linden 1' });
    const deleted = await me(session).DELETE('/v1/me/addresses/{id}', byId(home.id));
    expect(deleted.response.status).toBe(204);
    const { data } = await me(session).GET('/v1/me/addresses');
    expect(data!.data.map((a) => [a.id, a.is_default])).toEqual([[office.id, false]]);
    expect((await me(session).GET('/v1/me/addresses/{id}', byId(home.id))).response.status).toBe(404);
  });
});

describe('the store domain', () => {
  test('every /v1/me orders and addresses operation answers 400 while the project has no domain', async () => {
    const bare = await createProject(app, { domain: 'bare.example.com' });
    const session = await registerCustomer(storefront(app, bare.keys.publishable_test.token));
    const address = (
      await signedIn(app, bare.keys.publishable_test.token, session.access_token).POST('/v1/me/addresses', {
        body: berlin,
      })
    ).data!.data;
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: bare.project.id } },
      body: { domain: null, domain_verified: false },
    });
    const client = signedIn(app, bare.keys.publishable_test.token, session.access_token);
    const answers = [
      await client.GET('/v1/me/orders'),
      await client.GET('/v1/me/orders/{id}', byId('ord_01jd5r0a2c4e6g8j0l2n4q6s8u')),
      await client.GET('/v1/me/addresses'),
      await client.POST('/v1/me/addresses', { body: berlin }),
      await client.GET('/v1/me/addresses/{id}', byId(address.id)),
      await client.PATCH('/v1/me/addresses/{id}', { ...byId(address.id), body: { city: 'Hamburg' } }),
      await client.DELETE('/v1/me/addresses/{id}', byId(address.id)),
    ];
    expect(answers.map((a) => [a.response.status, a.error])).toEqual(
      Array(7).fill([
        400,
        { error: { code: 'invalid_request', message: 'Store domain must be configured to use customer auth.' } },
      ]),
    );
  });
});
