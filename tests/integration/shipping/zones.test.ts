import { describe, expect, test } from '@jest/globals';
import { buildZone, createRate, createZone } from '../../factories/shipping.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();
const eventsFor = async (resourceId: string) =>
  (await store.api.GET('/v1/events', { params: { query: { resource_id: resourceId, order: 'asc' } } })).data!.data;

/** A project of its own, so zone lists and the rest-of-world rule start empty. */
async function freshProject() {
  const { keys } = await createProject(store.app);
  return store.app.client(keys.secret_test.token);
}

describe('createShippingZone', () => {
  test('answers 201 with the defaults, rate_count 0 and rates []; records shipping.zone.created', async () => {
    const zone = await createZone(store.api, { name: 'North America', countries: ['US', 'CA'] });
    expect(zone).toMatchObject({
      name: 'North America',
      countries: ['US', 'CA'],
      is_rest_of_world: false,
      is_active: true,
      carrier_callback_url: null,
      position: 0,
      rate_count: 0,
      rates: [],
    });
    expect(zone.id).toMatch(/^shz_[0-9a-z]{26}$/);
    const [event] = await eventsFor(zone.id);
    expect(event).toMatchObject({
      type: 'shipping.zone.created',
      resource_type: 'shipping_zone',
      actor_type: 'api_key',
      actor_id: store.keys.secret_test.id,
    });
  });

  test('countries default to [] and are upper-cased in the order given', async () => {
    expect((await createZone(store.api, { countries: undefined })).countries).toEqual([]);
    expect((await createZone(store.api, { countries: ['de', 'At', 'CH'] })).countries).toEqual(['DE', 'AT', 'CH']);
  });

  test('a code that is not an ISO 3166-1 alpha-2 country (XX) is 400 naming it', async () => {
    const { error, response } = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ countries: ['US', 'XX'] }),
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'countries[1]',
        message: 'countries[1] is XX, which is not an ISO 3166-1 alpha-2 country code.',
      },
    });
  });

  test.each([['U1'], ['1A'], ['uk'], ['EU']])('%s is not a country code (400)', async (code) => {
    const { error, response } = await store.api.POST('/v1/shipping/zones', { body: buildZone({ countries: [code] }) });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'countries[0]' });
    expect(error!.error.message).toContain(code);
  });

  test('a duplicate country, in any case, is 400 naming it', async () => {
    const { error, response } = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ countries: ['US', 'CA', 'us'] }),
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: {
        code: 'invalid_request',
        field: 'countries[2]',
        message: 'countries[2] repeats US; list each country once.',
      },
    });
  });

  test('at most 250 countries; codes are two characters', async () => {
    const tooMany = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ countries: Array.from({ length: 251 }, () => 'US') }),
    });
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.error!.error).toMatchObject({
      code: 'invalid_request',
      field: 'countries',
      message: 'countries must have at most 250 items.',
    });
    const long = await store.api.POST('/v1/shipping/zones', { body: buildZone({ countries: ['USA'] }) });
    expect(long.response.status).toBe(400);
    expect(long.error!.error.field).toBe('countries[0]');
  });

  test('every existing country fits in one zone (249 codes)', async () => {
    const { COUNTRY_CODES } = await import('../../../src/shared/iso-codes.js');
    const zone = await createZone(store.api, { countries: [...COUNTRY_CODES].map((code) => code.toLowerCase()) });
    expect(zone.countries).toHaveLength(249);
  });

  test('name is required, 1-255 characters and not blank', async () => {
    for (const name of ['', '   ', 'x'.repeat(256)]) {
      const { error, response } = await store.api.POST('/v1/shipping/zones', { body: buildZone({ name }) });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe('name');
    }
    expect((await createZone(store.api, { name: 'x'.repeat(255) })).name).toHaveLength(255);
  });

  test('keeps every optional field', async () => {
    const zone = await createZone(store.api, {
      name: 'Europe',
      countries: ['FR'],
      is_active: false,
      position: 7,
      carrier_callback_url: 'https://rates.carrier.example/v1/quote?account=42',
    });
    expect(zone).toMatchObject({
      is_active: false,
      position: 7,
      carrier_callback_url: 'https://rates.carrier.example/v1/quote?account=42',
    });
  });

  test.each([
    ['http://rates.carrier.example/quote', 'carrier_callback_url must be an https:// URL.'],
    ['ftp://rates.carrier.example/quote', 'carrier_callback_url must be an https:// URL.'],
    [
      'https://user:secret@rates.carrier.example/quote',
      'carrier_callback_url is not usable: the target URL must not contain credentials.',
    ],
    [
      'https://10.0.0.8/quote',
      'carrier_callback_url must not point to a non-public address (10.0.0.8 is private network).',
    ],
    [
      'https://127.0.0.1:8443/quote',
      'carrier_callback_url must not point to a non-public address (127.0.0.1 is loopback).',
    ],
  ])('carrier_callback_url %s is 400', async (url, message) => {
    const { error, response } = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ carrier_callback_url: url }),
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: { code: 'invalid_request', field: 'carrier_callback_url', message } });
  });

  test('carrier_callback_url: 2048 characters at most, and an absolute URL', async () => {
    const base = 'https://rates.carrier.example/';
    const atLimit = await createZone(store.api, { carrier_callback_url: base + 'a'.repeat(2048 - base.length) });
    expect(atLimit.carrier_callback_url).toHaveLength(2048);
    const over = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ carrier_callback_url: base + 'a'.repeat(2049 - base.length) }),
    });
    expect(over.response.status).toBe(400);
    expect(over.error!.error).toMatchObject({
      field: 'carrier_callback_url',
      message: 'carrier_callback_url must be at most 2048 characters long.',
    });
    const relative = await store.api.POST('/v1/shipping/zones', {
      body: buildZone({ carrier_callback_url: '/quote' }),
    });
    expect(relative.response.status).toBe(400);
    expect(relative.error!.error.field).toBe('carrier_callback_url');
  });

  test("the ETag of the create answer is the zone's current one: a PATCH with it in If-Match is made", async () => {
    const created = await store.call('POST', '/v1/shipping/zones', { name: 'Tagged', countries: ['FR'] });
    expect(created.status).toBe(201);
    const tag = created.headers.get('ETag');
    expect(tag).toMatch(/^"[\w-]{22}"$/);
    const { id } = (await json(created)).data;
    expect((await store.call('GET', `/v1/shipping/zones/${id}`)).headers.get('ETag')).toBe(tag);
    const patched = await fetch(`${store.app.baseUrl}/v1/shipping/zones/${id}`, {
      method: 'PATCH',
      headers: {
        Authorization: `Bearer ${store.keys.secret_test.token}`,
        'Content-Type': 'application/json',
        'If-Match': tag!,
      },
      body: JSON.stringify({ name: 'Tagged again' }),
    });
    expect(patched.status).toBe(200);
    expect((await json(patched)).data.name).toBe('Tagged again');
  });

  test('a publishable key cannot create zones (403)', async () => {
    const storefront = store.app.client(store.keys.publishable_test.token);
    const { error, response } = await storefront.POST('/v1/shipping/zones', { body: buildZone() });
    expect(response.status).toBe(403);
    expect(error!.error.code).toBe('forbidden');
  });
});

describe('one rest-of-world zone per project (case mapping 2)', () => {
  test('a second rest-of-world zone is 409 conflict; another project may have its own', async () => {
    const api = await freshProject();
    await createZone(api, { name: 'Rest of world', countries: [], is_rest_of_world: true });
    const second = await api.POST('/v1/shipping/zones', { body: buildZone({ is_rest_of_world: true }) });
    expect(second.response.status).toBe(409);
    expect(second.error).toEqual({
      error: {
        code: 'conflict',
        field: 'is_rest_of_world',
        message: 'This project already has a rest-of-world zone; a project has at most one.',
      },
    });
    const inactive = await api.POST('/v1/shipping/zones', {
      body: buildZone({ is_rest_of_world: true, is_active: false }),
    });
    expect(inactive.response.status).toBe(409);
    await createZone(await freshProject(), { is_rest_of_world: true });
  });

  test('the database itself holds the rule: a second rest-of-world row is refused by the partial unique index', async () => {
    const { project } = await createProject(store.app);
    const row = { projectId: project.id, name: 'Rest of world', countries: [], isRestOfWorld: true };
    const db = store.app.deps.db;
    await db.shippingZone.create({ data: { id: 'shz_0000000000000000000000000a', ...row } });
    await expect(
      db.shippingZone.create({ data: { id: 'shz_0000000000000000000000000b', ...row } }),
    ).rejects.toMatchObject({ code: 'P2002' });
    await db.shippingZone.create({ data: { id: 'shz_0000000000000000000000000c', ...row, isRestOfWorld: false } });
  });

  test('10 concurrent creates of a rest-of-world zone: exactly one succeeds, the others are 409', async () => {
    const api = await freshProject();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.POST('/v1/shipping/zones', { body: buildZone({ name: `RoW ${i}`, is_rest_of_world: true }) }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const answer of answers.filter((a) => a.response.status === 409)) {
      expect(answer.error!.error).toMatchObject({ code: 'conflict', field: 'is_rest_of_world' });
    }
    const list = await api.GET('/v1/shipping/zones', {});
    expect(list.data!.data.filter((zone) => zone.is_rest_of_world)).toHaveLength(1);
  });

  test('making a second zone rest-of-world by PATCH is 409, also when several try at once', async () => {
    const api = await freshProject();
    const zones = await Promise.all([1, 2, 3, 4].map(() => createZone(api, { countries: [] })));
    const answers = await Promise.all(
      zones.map((zone) => api.PATCH('/v1/shipping/zones/{id}', { ...byId(zone.id), body: { is_rest_of_world: true } })),
    );
    expect(answers.map((answer) => answer.response.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = answers.find((answer) => answer.response.status === 200)!.data!.data;
    // The rest-of-world zone itself may be saved again, and may give up the role.
    expect(
      (
        await api.PATCH('/v1/shipping/zones/{id}', {
          ...byId(winner.id),
          body: { is_rest_of_world: true, name: 'Everywhere else' },
        })
      ).response.status,
    ).toBe(200);
    expect(
      (await api.PATCH('/v1/shipping/zones/{id}', { ...byId(winner.id), body: { is_rest_of_world: false } })).response
        .status,
    ).toBe(200);
    expect(
      (await api.PATCH('/v1/shipping/zones/{id}', { ...byId(zones[0].id), body: { is_rest_of_world: true } })).response
        .status,
    ).toBe(200);
  });
});

describe('listShippingZones', () => {
  test('by position ascending by default (ties oldest first); sort=created_at, order=desc; cursor pages; total', async () => {
    const api = await freshProject();
    const c = await createZone(api, { name: 'C', position: 2 });
    const a = await createZone(api, { name: 'A', position: 0 });
    const b1 = await createZone(api, { name: 'B1', position: 1 });
    const b2 = await createZone(api, { name: 'B2', position: 1 });
    const names = async (query: Record<string, unknown>) =>
      (await api.GET('/v1/shipping/zones', { params: { query } })).data!.data.map((zone) => zone.name);
    expect(await names({})).toEqual(['A', 'B1', 'B2', 'C']);
    expect(await names({ order: 'desc' })).toEqual(['C', 'B2', 'B1', 'A']);
    expect(await names({ sort: 'created_at' })).toEqual(['C', 'A', 'B1', 'B2']);
    expect(await names({ sort: 'created_at', order: 'desc' })).toEqual(['B2', 'B1', 'A', 'C']);

    const first = await api.GET('/v1/shipping/zones', { params: { query: { limit: 3 } } });
    expect(first.data!.pagination).toMatchObject({ has_more: true, total: 4 });
    expect(first.data!.data.map((zone) => zone.id)).toEqual([a.id, b1.id, b2.id]);
    const next = await api.GET('/v1/shipping/zones', {
      params: { query: { limit: 3, cursor: first.data!.pagination.cursor! } },
    });
    expect(next.data!.data.map((zone) => zone.id)).toEqual([c.id]);
    expect(next.data!.pagination).toEqual({ cursor: null, has_more: false, total: 4 });
  });

  test('expand=rates inlines the rates by position; rate_count counts them; fields cuts each zone', async () => {
    const api = await freshProject();
    const zone = await createZone(api, { name: 'With rates' });
    const second = await createRate(api, zone.id, { name: 'Second', position: 1 });
    const first = await createRate(api, zone.id, { name: 'First', position: 0, is_active: false });
    await createZone(api, { name: 'Empty' });
    const plain = await api.GET('/v1/shipping/zones', {});
    expect(plain.data!.data.map((z) => [z.name, z.rate_count, z.rates])).toEqual([
      ['With rates', 2, undefined],
      ['Empty', 0, undefined],
    ]);
    const expanded = await api.GET('/v1/shipping/zones', { params: { query: { expand: ['rates'] } } });
    expect(expanded.data!.data[0].rates!.map((rate) => rate.id)).toEqual([first.id, second.id]);
    expect(expanded.data!.data[1].rates).toEqual([]);
    const sparse = await api.GET('/v1/shipping/zones', { params: { query: { fields: ['name', 'rate_count'] } } });
    expect(sparse.data!.data[0]).toEqual({ id: zone.id, name: 'With rates', rate_count: 2 });
  });

  test('limit is 1-100 and expand takes only rates', async () => {
    for (const query of ['limit=0', 'limit=101', 'expand=zones', 'sort=name']) {
      const response = await fetch(`${store.app.baseUrl}/v1/shipping/zones?${query}`, {
        headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
      });
      expect(response.status).toBe(400);
      expect((await json(response)).error.field).toBe(query.split('=')[0]);
    }
  });
});

describe('getShippingZone', () => {
  test("answers the zone; expand=rates inlines its rates; fields; 404 for another project's zone or an unknown id", async () => {
    const zone = await createZone(store.api, { name: 'Read me' });
    const rate = await createRate(store.api, zone.id);
    const read = await store.api.GET('/v1/shipping/zones/{id}', byId(zone.id));
    expect(read.data!.data).toMatchObject({ id: zone.id, name: 'Read me', rate_count: 1 });
    expect(read.data!.data.rates).toBeUndefined();
    const expanded = await store.api.GET('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id }, query: { expand: ['rates'] } },
    });
    expect(expanded.data!.data.rates).toEqual([rate]);
    const sparse = await store.api.GET('/v1/shipping/zones/{id}', {
      params: { path: { id: zone.id }, query: { fields: ['countries'] } },
    });
    expect(sparse.data!.data).toEqual({ id: zone.id, countries: ['US', 'CA'] });

    const other = await freshProject();
    for (const id of [zone.id, 'shz_00000000000000000000000000', 'nonsense']) {
      const missing = await other.GET('/v1/shipping/zones/{id}', byId(id));
      expect(missing.response.status).toBe(404);
      expect(missing.error).toEqual({ error: { code: 'not_found', message: 'Shipping zone not found.' } });
    }
  });
});

describe('updateShippingZone', () => {
  test('countries replaces the array; records shipping.zone.updated with the changes; an unchanged PATCH records nothing', async () => {
    const zone = await createZone(store.api, { countries: ['US', 'CA'] });
    const updated = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { countries: ['mx'], position: 3 },
    });
    expect(updated.response.status).toBe(200);
    expect(updated.data!.data).toMatchObject({ countries: ['MX'], position: 3, rate_count: 0 });
    expect(updated.data!.data.rates).toBeUndefined();
    const events = await eventsFor(zone.id);
    expect(events.map((event) => event.type)).toEqual(['shipping.zone.created', 'shipping.zone.updated']);
    expect(events[1].metadata.changes).toEqual({
      countries: { from: ['US', 'CA'], to: ['MX'] },
      position: { from: 0, to: 3 },
    });

    const same = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { countries: ['MX'], name: zone.name },
    });
    expect(same.data!.data.updated_at).toBe(updated.data!.data.updated_at);
    expect(await eventsFor(zone.id)).toHaveLength(2);
  });

  test('carrier_callback_url is set, checked and cleared with null', async () => {
    const zone = await createZone(store.api);
    const set = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { carrier_callback_url: 'https://rates.carrier.example/q' },
    });
    expect(set.data!.data.carrier_callback_url).toBe('https://rates.carrier.example/q');
    const bad = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { carrier_callback_url: 'http://rates.carrier.example/q' },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error.field).toBe('carrier_callback_url');
    const cleared = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { carrier_callback_url: null },
    });
    expect(cleared.data!.data.carrier_callback_url).toBeNull();
  });

  test('unknown and duplicate countries are 400 as on create; an empty body is 400; unknown zone 404', async () => {
    const zone = await createZone(store.api);
    const unknown = await store.api.PATCH('/v1/shipping/zones/{id}', { ...byId(zone.id), body: { countries: ['XX'] } });
    expect(unknown.error!.error).toMatchObject({ code: 'invalid_request', field: 'countries[0]' });
    const duplicate = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId(zone.id),
      body: { countries: ['fr', 'FR'] },
    });
    expect(duplicate.error!.error).toMatchObject({ code: 'invalid_request', field: 'countries[1]' });
    const empty = await store.api.PATCH('/v1/shipping/zones/{id}', { ...byId(zone.id), body: {} });
    expect(empty.response.status).toBe(400);
    const missing = await store.api.PATCH('/v1/shipping/zones/{id}', {
      ...byId('shz_00000000000000000000000000'),
      body: { name: 'x' },
    });
    expect(missing.response.status).toBe(404);
  });
});

describe('deleteShippingZone', () => {
  test('deletes the zone and all its rates; records shipping.zone.deleted with the last state', async () => {
    const zone = await createZone(store.api, { name: 'Doomed' });
    const rate = await createRate(store.api, zone.id);
    expect((await store.api.DELETE('/v1/shipping/zones/{id}', byId(zone.id))).response.status).toBe(204);
    expect((await store.api.GET('/v1/shipping/zones/{id}', byId(zone.id))).response.status).toBe(404);
    const rateGone = await store.api.PATCH('/v1/shipping/rates/{id}', { ...byId(rate.id), body: { price: 1 } });
    expect(rateGone.response.status).toBe(404);
    expect(rateGone.error).toEqual({ error: { code: 'not_found', message: 'Shipping rate not found.' } });
    expect(await store.app.deps.db.shippingRate.count({ where: { zoneId: zone.id } })).toBe(0);
    const events = await eventsFor(zone.id);
    expect(events.at(-1)).toMatchObject({
      type: 'shipping.zone.deleted',
      resource_type: 'shipping_zone',
      summary: 'Shipping zone "Doomed" deleted',
    });
    expect((await store.api.DELETE('/v1/shipping/zones/{id}', byId(zone.id))).response.status).toBe(404);
  });
});
