import { describe, expect, test } from '@jest/globals';
import { buildProduct, createProduct } from '../../factories/catalog.factory.js';
import { useStore } from '../../setup/store.js';
import { json } from '../../setup/http.js';

const store = useStore();

/** 50 keys of 40 characters, each holding 500 characters: the largest metadata the contract allows. */
const maximalMetadata = () =>
  Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`k${String(i).padStart(2, '0')}`.padEnd(40, 'x'), 'é'.repeat(500)]),
  );

/** `levels` arrays nested in one another, as JSON text (JSON.stringify would recurse). */
const nestedArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

const post = (path: string, text: string, headers: Record<string, string> = {}) =>
  fetch(`${store.app.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${store.keys.secret_test.token}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: text,
  });

describe('metadata bounds', () => {
  test('the largest allowed metadata (50 keys of 40 characters, 500-character values) is stored and returned as sent', async () => {
    const metadata = maximalMetadata();
    const product = await createProduct(store.api, { metadata });
    expect(product.metadata).toEqual(metadata);
  });

  test('a 1 MB metadata value answers 400 naming metadata.<key>, and nothing is stored', async () => {
    const response = await store.call(
      'POST',
      '/v1/products',
      buildProduct({ metadata: { notes: 'x'.repeat(1_000_000) } }),
    );
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'metadata.notes' });
    const list = await store.api.GET('/v1/products', {});
    expect(list.data!.data.filter((p) => 'notes' in p.metadata!)).toEqual([]);
  });

  test('a value of 501 characters, a nested object, an array and null answer 400 naming the key', async () => {
    for (const [key, value] of [
      ['long', 'x'.repeat(501)],
      ['nested', { a: 1 }],
      ['list', [1, 2]],
      ['nothing', null],
    ] as const) {
      const response = await store.call('POST', '/v1/products', buildProduct({ metadata: { [key]: value } as never }));
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: `metadata.${key}` });
    }
  });

  test('a key of 41 characters answers 400 naming it', async () => {
    const key = 'k'.repeat(41);
    const response = await store.call('POST', '/v1/products', buildProduct({ metadata: { [key]: 'x' } }));
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: `metadata.${key}` });
  });

  test('every resource with metadata enforces the bounds: customers, companies, locations, draft orders, customer groups', async () => {
    const nested = { metadata: { deep: { a: 1 } } };
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/v1/customers', { email: 'meta@example.com', ...nested }],
      ['POST', '/v1/companies', { name: 'Meta GmbH', ...nested }],
      ['POST', '/v1/locations', { name: 'Meta depot', ...nested }],
      ['POST', '/v1/draft-orders', { currency: 'USD', ...nested }],
      ['POST', '/v1/customer-groups', { name: 'Meta group', ...nested }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await store.call(method, path, body);
      const answer = await json(response);
      expect([path, response.status]).toEqual([path, 400]);
      const fields = answer.error.field
        ? [answer.error.field]
        : answer.error.details.map((d: { field: string }) => d.field);
      expect(fields).toContain('metadata.deep');
    }
  });
});

describe('request body nesting', () => {
  test('a 10,000-deep body answers 400 at parse time, on an idempotent create too (never 500)', async () => {
    const plain = await post('/v1/products', nestedArrays(10_000));
    expect(plain.status).toBe(400);
    expect((await json(plain)).error).toMatchObject({
      code: 'invalid_request',
      message: 'The request body nests objects and arrays more than 32 levels deep.',
    });
    const keyed = await post('/v1/products', `{"title":"Deep","metadata":{"a":${nestedArrays(200_000)}}}`, {
      'Idempotency-Key': 'deep-body-1',
    });
    expect(keyed.status).toBe(400);
    expect((await json(keyed)).error.code).toBe('invalid_request');
  });

  test('32 levels pass the parser (and meet the validator); 33 do not', async () => {
    const at32 = await post('/v1/products', `{"title":"Deep","variants":${nestedArrays(31)}}`);
    expect(at32.status).toBe(400);
    expect((await json(at32)).error.message).not.toMatch(/levels deep/);
    const at33 = await post('/v1/products', `{"title":"Deep","variants":${nestedArrays(32)}}`);
    expect(at33.status).toBe(400);
    expect((await json(at33)).error.message).toMatch(/more than 32 levels deep/);
  });
});

describe('list page size', () => {
  test('a page whose rows would pass 1 MiB of JSON ends early with a cursor, and the walk still returns every row once', async () => {
    // Each product carries about 196 KB of description (3 bytes per character in UTF-8).
    const created = [];
    for (let i = 0; i < 8; i += 1) {
      created.push(
        await createProduct(store.api, { title: `Heavy ${i}`, tags: ['heavy'], description: '€'.repeat(65_000) }),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await fetch(
        `${store.app.baseUrl}/v1/products?tag=heavy&limit=8${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: { Authorization: `Bearer ${store.keys.publishable_test.token}` } },
      );
      const text = await response.text();
      const page = JSON.parse(text) as {
        data: Array<{ id: string }>;
        pagination: { cursor: string | null; total: number };
      };
      expect(Buffer.byteLength(JSON.stringify(page.data))).toBeLessThanOrEqual(1024 * 1024);
      expect(page.pagination.total).toBe(8);
      seen.push(...page.data.map((p) => p.id));
      cursor = page.pagination.cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen.sort()).toEqual(created.map((p) => p.id).sort());
  });
});
