import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createDefinition } from '../../factories/metafield.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// Every date-time input of the contract (`format: date-time`, validated as RFC 3339 by ajv-formats) takes what
// RFC 3339 allows: a leap second, years 0000 to 9999, a lowercase `t`/`z` or a space between date and time, an
// offset of up to ±23:59 (hours alone too), any number of fractional digits. `new Date()` refuses a leap second and
// an hours-alone offset (Invalid Date), and PostgreSQL refuses an instant before year 1 (in UTC): each answered
// 500. A filter takes every such instant (before year 1 or after year 9999 as the first or last one stored); a
// stored one (a discount's window, a credit's expiry) outside years 0001-9999 in UTC is a 400 naming its field.
const store = useStore();
const get = (path: string) =>
  fetch(`${store.app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${store.keys.secret_test.token}` } });

/** Each accepted form, with the instant it names (null: outside years 0001-9999 in UTC). */
const FORMS: Array<[name: string, text: string, instant: string | null]> = [
  ['a leap second', '2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
  ['a leap second at +01:00', '2017-01-01T00:59:60.5+01:00', '2017-01-01T00:00:00.500Z'],
  ['year 0000', '0000-01-01T00:00:00Z', null],
  ['year 0001 before UTC', '0001-01-01T00:00:00+01:00', null],
  ['year 0001', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ['year 9999', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ['year 9999 past UTC', '9999-12-31T23:59:59-23:59', null],
  ['lowercase t and z', '2030-06-01t12:00:00z', '2030-06-01T12:00:00.000Z'],
  ['a space for T', '2030-06-01 12:00:00Z', '2030-06-01T12:00:00.000Z'],
  ['a +14:00 offset', '2030-06-01T12:00:00+14:00', '2030-05-31T22:00:00.000Z'],
  ['an hours-only offset', '2030-06-01T12:00:00+14', '2030-05-31T22:00:00.000Z'],
  ['a +1400 offset', '2030-06-01T12:00:00+1400', '2030-05-31T22:00:00.000Z'],
  ['many fractional digits', '2030-06-01T12:00:00.123456789012345678901234567890Z', '2030-06-01T12:00:00.123Z'],
];
const query = (name: string, value: string) => new URLSearchParams({ [name]: value }).toString();

describe('created_after filters', () => {
  let productId: string;
  let customerId: string;
  let customerEmail: string;
  beforeAll(async () => {
    productId = (await createProduct(store.api, { title: 'Dated widget' })).id;
    ({ id: customerId, email: customerEmail } = await createCustomer(store.api));
  });

  test.each(FORMS)('%s (%s) answers 200, before now listing what exists and after it nothing', async (_, text) => {
    const before = Date.parse(text.replace(/:60/, ':59')) < Date.now() || /^000/.test(text);
    for (const [path, id] of [
      ['/v1/products', () => productId],
      ['/v1/customers', () => customerId],
      // With a search, the list is read through Prisma rather than SQL.
      [`/v1/customers?${query('search', customerEmail)}`, () => customerId],
      ['/v1/orders', () => undefined],
    ] as const) {
      const response = await get(`${path}${path.includes('?') ? '&' : '?'}${query('created_after', text)}`);
      expect([path, response.status]).toEqual([path, 200]);
      const ids = (await json(response)).data.map((item: { id: string }) => item.id);
      if (id() !== undefined) expect([path, ids.includes(id())]).toEqual([path, before]);
    }
  });
});

describe('POST /v1/webhooks/{id}/recover since', () => {
  test.each(FORMS)('%s (%s) answers 202', async (_, since) => {
    const webhook = await createWebhook(store.api, 'https://date-hooks.example.com/');
    const response = await store.call('POST', `/v1/webhooks/${webhook.id}/recover`, { since });
    expect([response.status, (await json(response)).data]).toEqual([202, { requeued: 0 }]);
  });
});

/** Expects the stored instant, or 400 invalid_request naming the field when it is outside years 0001-9999. */
async function expectStored(response: Response, field: string, instant: string | null, read: (data: never) => unknown) {
  const body = await json(response);
  if (instant === null) {
    expect([response.status, body.error?.code, body.error?.field]).toEqual([400, 'invalid_request', field]);
    expect(body.error.message).toContain(field);
  } else {
    expect([response.status, read(body.data as never)]).toEqual([expect.any(Number), instant]);
    expect([200, 201]).toContain(response.status);
  }
}

describe('stored date-times: discounts, promotions and price lists', () => {
  let n = 0;
  const bodies: Record<string, () => Record<string, unknown>> = {
    '/v1/discounts': () => ({ code: `DATED${++n}`, title: 'Dated', type: 'percentage', value: 10 }),
    '/v1/promotions': () => ({ title: `Dated ${++n}`, type: 'percentage', value: 10 }),
    '/v1/price-lists': () => ({ slug: `dated-${++n}`, name: `Dated ${n}`, currency: 'USD' }),
  };

  describe.each(Object.keys(bodies))('%s', (path) => {
    test.each(FORMS)('starts_at as %s (%s) on POST', async (_, text, instant) => {
      const response = await store.call('POST', path, { ...bodies[path](), starts_at: text });
      await expectStored(response, 'starts_at', instant, (data: { starts_at: string }) => data.starts_at);
    });

    test.each(FORMS)('ends_at as %s (%s) on PATCH', async (_, text, instant) => {
      const created = await store.call('POST', path, bodies[path]());
      expect(created.status).toBe(201);
      const { data } = await json(created);
      const response = await store.call('PATCH', `${path}/${data.id}`, { ends_at: text });
      await expectStored(response, 'ends_at', instant, (updated: { ends_at: string }) => updated.ends_at);
    });

    test('the first and last instants stored read back alike, alone and in the list', async () => {
      const window = { starts_at: '0001-01-01T00:00:00Z', ends_at: '9999-12-31T23:59:59.999999Z' };
      const created = await store.call('POST', path, { ...bodies[path](), ...window });
      expect(created.status).toBe(201);
      const { data } = await json(created);
      const shown = { starts_at: '0001-01-01T00:00:00.000Z', ends_at: '9999-12-31T23:59:59.999Z' };
      expect(data).toMatchObject(shown);
      expect((await json(await get(`${path}/${data.id}`))).data).toMatchObject(shown);
      const list = await get(`${path}?limit=100`);
      expect(list.status).toBe(200);
      expect((await json(list)).data.find((item: { id: string }) => item.id === data.id)).toMatchObject(shown);
    });

    test('ends_at one leap second after starts_at is after it', async () => {
      const response = await store.call('POST', path, {
        ...bodies[path](),
        starts_at: '2016-12-31T23:59:59Z',
        ends_at: '2016-12-31T23:59:60Z',
      });
      expect(response.status).toBe(201);
      expect((await json(response)).data.ends_at).toBe('2017-01-01T00:00:00.000Z');
    });
  });
});

describe('POST /v1/customers/{id}/store-credit/credits expires_at', () => {
  // A leap second at the end of 2030 (still to come), the forms of 2030, and the years at the edges.
  const future = FORMS.filter(([, text]) => /^(2030|0|9999)/.test(text)).concat([
    ['a leap second to come', '2030-12-31T23:59:60Z', '2031-01-01T00:00:00.000Z'],
  ]);

  test.each(future)('%s (%s)', async (_, expires_at, instant) => {
    const customer = await createCustomer(store.api);
    const response = await store.call('POST', `/v1/customers/${customer.id}/store-credit/credits`, {
      amount: 100,
      reason: 'Dated',
      expires_at,
    });
    if (instant === null || instant < new Date().toISOString()) {
      // Outside years 0001-9999, or in the past ("must be in the future").
      expect([response.status, (await json(response)).error.field]).toEqual([400, 'expires_at']);
    } else {
      await expectStored(response, 'expires_at', instant, (data: { expires_at: string }) => data.expires_at);
    }
  });

  test('an expiry in year 9999 reads back in the balance and the ledger', async () => {
    const customer = await createCustomer(store.api);
    const issued = await store.call('POST', `/v1/customers/${customer.id}/store-credit/credits`, {
      amount: 100,
      reason: 'Dated',
      expires_at: '9999-12-31T23:59:59Z',
    });
    expect(issued.status).toBe(201);
    const balance = await get(`/v1/customers/${customer.id}/store-credit`);
    expect((await json(balance)).data.next_expiry).toEqual({ amount: 100, expires_at: '9999-12-31T23:59:59.000Z' });
    const ledger = await get(`/v1/customers/${customer.id}/store-credit/transactions`);
    expect(ledger.status).toBe(200);
    expect((await json(ledger)).data[0].expires_at).toBe('9999-12-31T23:59:59.000Z');
  });

  test('a past leap second is 400 on expires_at, not 500', async () => {
    const customer = await createCustomer(store.api);
    const response = await store.call('POST', `/v1/customers/${customer.id}/store-credit/credits`, {
      amount: 100,
      reason: 'Dated',
      expires_at: '2016-12-31T23:59:60Z',
    });
    expect([response.status, (await json(response)).error.field]).toEqual([400, 'expires_at']);
  });
});

describe('automatic group date conditions', () => {
  // Date.UTC reads years 0-99 as 1900-1999, so a real date of years 0001-0099 was refused as not one.
  const createDateGroup = (field: string, operator: string, value: string) =>
    store.call('POST', '/v1/customer-groups', {
      name: `Dated ${field} ${operator} ${value}`,
      type: 'automatic',
      conditions: [{ field, operator, value }],
    });

  test.each([
    ['customer_added_date', 'is_after', '0050-06-15', true],
    ['customer_added_date', 'is_before', '0001-01-01', false],
    ['customer_added_date', 'is_before', '0099-12-31', false],
    ['customer_added_date', 'is_after', '0100-01-01', true],
    ['customer_added_date', 'is_after', '9999-12-31', false],
    ['last_order_date', 'is_before', '0050-06-15', false],
  ])('%s %s %s answers 201 (members: every customer %s)', async (field, operator, value, everyone) => {
    await createCustomer(store.api);
    const response = await createDateGroup(field, operator, value);
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data.conditions[0].value).toBe(value);
    const customers = (await json(await get('/v1/customers?limit=1'))).pagination.total;
    expect(data.member_count).toBe(everyone ? customers : 0);
    const members = await get(`/v1/customers?${query('group_id', data.id)}&limit=1`);
    expect([members.status, (await json(members)).pagination.total]).toEqual([200, everyone ? customers : 0]);
  });

  test.each(['0000-06-15', '2026-02-29', '0100-02-29'])(
    '%s (before year 1, or no such day) is 400 on conditions[0].value',
    async (value) => {
      const response = await createDateGroup('customer_added_date', 'is_after', value);
      expect(response.status).toBe(400);
      expect((await json(response)).error.field).toBe('conditions[0].value');
    },
  );
});

describe('metafield values of type datetime and date', () => {
  // Validated with the contract's own format checks and kept as the text sent (never read as an instant).
  let productId: string;
  beforeAll(async () => {
    productId = (await createProduct(store.api, { title: 'Metafield dates' })).id;
    await createDefinition(store.api, { label: 'When', slug: 'when', value_type: 'datetime' });
    await createDefinition(store.api, { label: 'Day', slug: 'day', value_type: 'date' });
  });

  test.each(FORMS)('datetime %s (%s) is stored and shown as sent', async (_, value) => {
    const response = await store.call('PUT', `/v1/products/${productId}/metafields/when`, { value });
    expect([response.status, (await json(response)).data.value]).toEqual([200, value]);
  });

  test.each(['0000-01-01', '0050-06-15', '9999-12-31'])('date %s is stored and shown as sent', async (value) => {
    const response = await store.call('PUT', `/v1/products/${productId}/metafields/day`, { value });
    expect([response.status, (await json(response)).data.value]).toEqual([200, value]);
  });
});

describe('date inputs (format: date)', () => {
  // expected_at is kept as the text sent, so every date the contract accepts is stored and shown as it came.
  test.each(['0000-01-01', '0050-06-15', '9999-12-31', '2028-02-29'])(
    'purchase order expected_at %s is stored as sent',
    async (expected_at) => {
      const response = await store.call('POST', '/v1/purchase-orders', {
        location_id: store.project.default_location_id,
        expected_at,
      });
      expect(response.status).toBe(201);
      expect((await json(response)).data.expected_at).toBe(expected_at);
    },
  );
});
