import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// Every date-time input of the contract (`format: date-time`, validated as RFC 3339 by ajv-formats) takes what
// RFC 3339 allows: a leap second, years 0000 to 9999, a lowercase `t`/`z` or a space between date and time, an
// offset of up to ±23:59 (hours alone too), any number of fractional digits. `new Date()` refuses a leap second and
// an hours-alone offset (Invalid Date), and PostgreSQL refuses an instant before year 1 (in UTC): each answered
// 500. A filter takes every such instant (before year 1 or after year 9999 as the first or last one stored).
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
  beforeAll(async () => {
    productId = (await createProduct(store.api, { title: 'Dated widget' })).id;
    customerId = (await createCustomer(store.api)).id;
  });

  test.each(FORMS)('%s (%s) answers 200, before now listing what exists and after it nothing', async (_, text) => {
    const before = Date.parse(text.replace(/:60/, ':59')) < Date.now() || /^000/.test(text);
    for (const [path, id] of [
      ['/v1/products', () => productId],
      ['/v1/customers', () => customerId],
      ['/v1/orders', () => undefined],
    ] as const) {
      const response = await get(`${path}?${query('created_after', text)}`);
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
