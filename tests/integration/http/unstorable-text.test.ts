import { describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses a lone surrogate; the validation layer refuses both
// for every operation (found by the contract fuzz).
const store = useStore();
const call = (method: string, path: string, body?: unknown) => store.call(method, path, body);

describe('NUL characters (\\u0000) in a request', () => {
  test('in a body field: 400 invalid_request naming the field, not a 500', async () => {
    const response = await call('POST', '/v1/customers', {
      email: 'nul@example.com',
      first_name: 'A\u0000da',
      last_name: 'Lovelace',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'first_name' });
  });

  test('in a nested field and in an object key: each named by its path', async () => {
    const response = await call('POST', '/v1/products', {
      title: 'Shirt',
      variants: [{ title: 'S\u0000', price: 100 }],
      metadata: { 'a\u0000': 'x' },
    });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.code).toBe('validation_error');
    expect(error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'metadata.a\\u0000', // the key's NUL written as an escape: the answer itself must be storable
      'variants[0].title',
    ]);
  });

  test('in an object key with an Idempotency-Key: 400, and the same 400 replayed (the answer naming it is stored)', async () => {
    const send = () =>
      fetch(`${store.app.baseUrl}/v1/customers`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${store.keys.secret_test.token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': 'nul-key-1',
        },
        body: JSON.stringify({ email: 'key@example.com', first_name: 'A', metadata: { "x' OR 'a\u0000b": false } }),
      });
    const first = await send();
    expect(first.status).toBe(400);
    const body = await json(first);
    expect(body.error.details).toContainEqual(expect.objectContaining({ field: "metadata.x' OR 'a\\u0000b" }));
    const replay = await send();
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(replay)).toEqual(body);
  });

  test('in a query parameter: 400 naming the parameter', async () => {
    const response = await call('GET', '/v1/customers?search=a%00b');
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'search' });
  });

  test('in a path parameter that is an enum: 400 like any value outside it (reorderMetafieldDefinitions declares no 404)', async () => {
    const response = await call('PUT', '/v1/store/metafields/a%00b/reorder', { slugs: ['x'] });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toMatch(/invalid_request|validation_error/);
  });

  test('in a path id: 404 not_found, as for any id that names nothing', async () => {
    const response = await call('PATCH', '/v1/customers/cus_%00', { first_name: 'Ada' });
    expect(response.status).toBe(404);
    expect((await json(response)).error.code).toBe('not_found');
  });
});

describe('lone surrogates in a request', () => {
  test('in a metadata value (jsonb): 400 naming the field, not a 500', async () => {
    // JSON.stringify writes a lone surrogate as the escape \\udc00, as a careless client would send it.
    const response = await call('POST', '/v1/customers', {
      email: 'lone@example.com',
      first_name: 'Ada',
      last_name: 'L',
      metadata: { note: 'x\udc00y' },
    });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'metadata.note' });
    expect(error.message).toContain('surrogate');
  });

  test('a surrogate pair (an emoji) is ordinary text', async () => {
    const response = await call('POST', '/v1/customers', {
      email: 'emoji@example.com',
      first_name: 'Ada \ud83d\ude00',
      last_name: 'L',
      metadata: { note: '\ud83d\ude00' },
    });
    expect(response.status).toBe(201);
  });
});

describe('deeply nested bodies', () => {
  test('a body nested 50,000 arrays deep is a 400, not a 500 (found by the contract fuzz)', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/customers`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}`, 'Content-Type': 'application/json' },
      body: `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });
});
