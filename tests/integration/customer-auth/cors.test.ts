import { describe, expect, test } from '@jest/globals';
import { openapiJson } from '../../../src/generated/document.js';
import { registerCustomer, storefront } from '../../factories/customer-auth.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { domain: 'cors-shop.example.com' } });
const { app } = store;

const ORIGIN = 'https://cors-shop.example.com';
const preflight = (path: string, method: string, headers = 'x-api-key, content-type') =>
  fetch(`${app.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
const headerList = (response: Response, name: string) =>
  (response.headers.get(name) ?? '').split(',').map((h) => h.trim().toLowerCase());

describe('CORS preflight', () => {
  test('OPTIONS /v1/auth/login from a browser gets 204 allowing any origin, POST and the storefront headers, without a key', async () => {
    const response = await preflight('/v1/auth/login', 'POST');
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(headerList(response, 'Access-Control-Allow-Methods')).toEqual(['post']);
    expect(headerList(response, 'Access-Control-Allow-Headers')).toEqual(
      expect.arrayContaining([
        'x-api-key',
        'authorization',
        'content-type',
        'idempotency-key',
        'x-test-mode',
        'x-consistency-token',
      ]),
    );
    expect(Number(response.headers.get('Access-Control-Max-Age'))).toBeGreaterThan(0);
    expect(await response.text()).toBe('');
  });

  test('/v1/me allows GET and PATCH, /v1/me/password POST', async () => {
    expect(
      headerList(
        await preflight('/v1/me', 'PATCH', 'x-api-key, authorization, content-type'),
        'Access-Control-Allow-Methods',
      ),
    ).toEqual(['get', 'patch']);
    expect(headerList(await preflight('/v1/me/password', 'POST'), 'Access-Control-Allow-Methods')).toEqual(['post']);
  });

  test('a path with a storefront read and secret writes (a product) allows only the read', async () => {
    const response = await preflight('/v1/products/prod_01jd5kx8m2n4p6q8r0s2t4v6w8', 'GET', 'x-api-key');
    expect(response.status).toBe(204);
    expect(headerList(response, 'Access-Control-Allow-Methods')).toEqual(['get']);
  });

  test('OPTIONS /v1/customers (secret operations) gets no CORS answer: 405 without Access-Control headers', async () => {
    for (const path of ['/v1/customers', '/v1/events', '/v1/locations/loc_01jd5m3q7x9c2v4b6n8p0r1s2b']) {
      const response = await preflight(path, 'GET', 'authorization');
      expect(response.status).toBe(405);
      expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('CORS on answers', () => {
  test('answers of browser operations, errors included, allow any origin and expose Retry-After and the rate-limit headers (RateLimit and RateLimit-Policy too)', async () => {
    const shop = storefront(app, store.keys.publishable_test.token);
    const ok = await shop.POST('/v1/auth/register', {
      body: { email: 'cors@example.com', password: 'Winter-Trail-2026', first_name: 'C', last_name: 'O' },
      headers: { Origin: ORIGIN },
    });
    const unauthorized = await storefront(app, '').POST('/v1/auth/login', {
      body: { email: 'cors@example.com', password: 'x' },
      headers: { Origin: ORIGIN },
    });
    const invalid = await shop.POST('/v1/auth/login', {
      body: { email: 'not-an-email', password: 'x' },
      headers: { Origin: ORIGIN },
    });
    for (const { response } of [ok, unauthorized, invalid]) {
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(headerList(response, 'Access-Control-Expose-Headers')).toEqual(
        expect.arrayContaining([
          'retry-after',
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-reset',
          'ratelimit',
          'ratelimit-policy',
        ]),
      );
    }
    expect([ok.response.status, unauthorized.response.status, invalid.response.status]).toEqual([201, 401, 400]);
  });

  test('the exposed headers are the ones openapi.yaml declares (AccessControlExposeHeaders)', async () => {
    const declared = JSON.parse(openapiJson).components.headers.AccessControlExposeHeaders.example as string;
    const { response } = await storefront(app, store.keys.publishable_test.token).GET('/v1/products', {
      headers: { Origin: ORIGIN },
    });
    expect(response.headers.get('Access-Control-Expose-Headers')).toBe(declared);
  });

  test('a 429 of a locked login carries CORS headers, so a storefront can read Retry-After', async () => {
    const shop = storefront(app, store.keys.publishable_test.token);
    for (let n = 0; n < 5; n++)
      await shop.POST('/v1/auth/login', { body: { email: 'locked-cors@example.com', password: 'Wrong-1-pass' } });
    const { response } = await shop.POST('/v1/auth/login', {
      body: { email: 'locked-cors@example.com', password: 'Wrong-1-pass' },
      headers: { Origin: ORIGIN },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(headerList(response, 'Access-Control-Expose-Headers')).toContain('retry-after');
    expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  test('/v1/me answers carry CORS headers', async () => {
    const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
    const response = await fetch(`${app.baseUrl}/v1/me`, {
      headers: {
        Origin: ORIGIN,
        'X-API-Key': store.keys.publishable_test.token,
        Authorization: `Bearer ${session.access_token}`,
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  test('secret-key operations send no CORS headers', async () => {
    const response = await fetch(`${app.baseUrl}/v1/customers`, {
      headers: { Origin: ORIGIN, Authorization: `Bearer ${store.keys.secret_test.token}` },
    });
    expect(response.status).toBe(200);
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
