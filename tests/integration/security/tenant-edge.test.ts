import { describe, expect, test } from '@jest/globals';
import { buildProduct } from '../../factories/catalog.factory.js';
import { buildRegistration, GOOD_PASSWORD } from '../../factories/customer-auth.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { eventually } from '../../setup/wait.js';

const store = useStore();

const call = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${store.app.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('URL fields a storefront renders take http(s) only', () => {
  test('a javascript: or data: product or collection image answers 400 naming image; https is stored', async () => {
    const token = store.keys.secret_test.token;
    for (const image of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'ftp://x.example/a.png']) {
      const product = await call(token, 'POST', '/v1/products', buildProduct({ image }));
      expect([image, product.status]).toEqual([image, 400]);
      expect((await json(product)).error).toMatchObject({ code: 'invalid_request', field: 'image' });
      const collection = await call(token, 'POST', '/v1/collections', { title: 'Bad image', image });
      expect((await json(collection)).error).toMatchObject({ code: 'invalid_request', field: 'image' });
    }
    const ok = await call(token, 'POST', '/v1/products', buildProduct({ image: 'https://cdn.example.com/a.png' }));
    expect(ok.status).toBe(201);
  });
});

describe('Idempotency-Key is scoped to the API key', () => {
  test("another key of the project (live vs test) never replays the first key's stored answer", async () => {
    const body = { url: 'https://hooks.example.com/in', events: ['customer.created'] };
    const headers = { 'Idempotency-Key': 'webhook-once' };
    const first = await call(store.keys.secret_test.token, 'POST', '/v1/webhooks', body, headers);
    expect(first.status).toBe(201);
    const secret = (await json(first)).data.secret as string;
    const replay = await call(store.keys.secret_test.token, 'POST', '/v1/webhooks', body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(store.keys.secret_live.token, 'POST', '/v1/webhooks', body, headers);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const otherAnswer = JSON.stringify(await json(other));
    expect(otherAnswer).not.toContain(secret);
  });
});

describe('the auth cache follows changes made directly in SQL', () => {
  test('a key revoked in SQL is refused within a second; a project suspended in SQL too', async () => {
    const created = await store.app.platform.POST('/platform/v1/projects/{id}/keys', {
      params: { path: { id: store.project.id } },
      body: { type: 'secret', mode: 'test' },
    });
    const key = created.data!.data;
    expect((await call(key.token, 'GET', '/v1/customers?limit=1')).status).toBe(200); // now cached
    await store.app.deps.db.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${key.id}`;
    const started = Date.now();
    expect(await eventually(async () => (await call(key.token, 'GET', '/v1/customers?limit=1')).status === 401)).toBe(
      true,
    );
    expect(Date.now() - started).toBeLessThan(1000);

    const token = store.keys.secret_live.token;
    expect((await call(token, 'GET', '/v1/customers?limit=1')).status).toBe(200);
    await store.app.deps.db.$executeRaw`UPDATE projects SET suspended = true WHERE id = ${store.project.id}`;
    try {
      expect(await eventually(async () => (await call(token, 'GET', '/v1/customers?limit=1')).status === 403)).toBe(
        true,
      );
    } finally {
      await store.app.deps.db.$executeRaw`UPDATE projects SET suspended = false WHERE id = ${store.project.id}`;
    }
  });
});

describe('inactive customers cannot sign in', () => {
  test('login and refresh answer 401 for an inactive customer, and becoming inactive ends their sessions', async () => {
    const pk = store.keys.publishable_test.token;
    const storefront = (path: string, body: unknown, bearer?: string) =>
      fetch(`${store.app.baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'X-API-Key': pk,
          ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const registration = buildRegistration();
    const session = (await json(await storefront('/v1/auth/register', registration))).data;
    expect((await storefront('/v1/me', undefined, session.access_token)).status).toBe(200);

    const patched = await call(store.keys.secret_test.token, 'PATCH', `/v1/customers/${session.customer.id}`, {
      status: 'inactive',
    });
    expect(patched.status).toBe(200);
    expect((await storefront('/v1/me', undefined, session.access_token)).status).toBe(401);
    const refreshed = await storefront('/v1/auth/token', { refresh_token: session.refresh_token });
    expect(refreshed.status).toBe(401);

    const wrong = await storefront('/v1/auth/login', { email: registration.email, password: 'Wrong-Password-1' });
    expect((await json(wrong)).error).toEqual({ code: 'unauthorized', message: 'Invalid email or password.' });
    const login = await storefront('/v1/auth/login', { email: registration.email, password: GOOD_PASSWORD });
    expect(login.status).toBe(401);
    expect((await json(login)).error.message).toBe('This account is inactive and cannot sign in. Contact the store.');

    await call(store.keys.secret_test.token, 'PATCH', `/v1/customers/${session.customer.id}`, { status: 'active' });
    expect((await storefront('/v1/auth/login', { email: registration.email, password: GOOD_PASSWORD })).status).toBe(
      200,
    );
  });
});
