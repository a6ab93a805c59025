import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildRegistration, GOOD_PASSWORD } from '../../factories/customer-auth.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

let app: TestApp;
let proxied: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  proxied = await startTestApp({ config: { trustProxy: true } });
});
afterAll(async () => {
  await app.close();
  await proxied.close();
});

const get = (token: string, path = '/v1/products?limit=1') =>
  fetch(`${app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });

const post = (
  target: TestApp,
  publishable: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${target.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': publishable, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Waits (at most 20 s) until at least `seconds` are left in the current minute, so a test's requests share one window. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}

describe('storefront traffic has its own per-minute budget', () => {
  test('with the per-minute limit at 8, exhausting it through the publishable key leaves the secret key answering 200', async () => {
    // One client may spend the whole storefront budget here (the per-client share is tested below).
    const project = await createProject(app, {}, { rate_limit_per_minute: 8, storefront_client_share_percent: 100 });
    expect(project.project.storefront_rate_limit_per_minute).toBeNull();
    await roomInMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await get(project.keys.publishable_test.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const merchant = await get(project.keys.secret_test.token, '/v1/customers?limit=1');
    expect(merchant.status).toBe(200);
    expect(merchant.headers.get('x-ratelimit-limit')).toBe('8');
    expect(merchant.headers.get('x-ratelimit-remaining')).toBe('7');
    expect(merchant.headers.get('ratelimit-policy')).toBe('"minute";q=8;w=60');
  });

  test('storefront answers name their own budget as the "storefront" policy in RateLimit-Policy and RateLimit', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 100 });
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: 30 },
    });
    await roomInMinute(10);
    const response = await get(project.keys.publishable_test.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toBe('"storefront";q=30;w=60');
    expect(response.headers.get('ratelimit')).toBe(`"storefront";r=29;t=${response.headers.get('x-ratelimit-reset')}`);
  });

  test('storefront_rate_limit_per_minute sets the storefront budget apart from rate_limit_per_minute; null follows it again', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 100, storefront_client_share_percent: 100 });
    const patched = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: 3 },
    });
    expect(patched.data!.data).toMatchObject({ rate_limit_per_minute: 100, storefront_rate_limit_per_minute: 3 });
    await roomInMinute(10);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(project.keys.publishable_test.token));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0].headers.get('x-ratelimit-limit')).toBe('3');
    expect((await json(answers[3])).error.code).toBe('rate_limited');
    expect((await get(project.keys.secret_test.token)).headers.get('x-ratelimit-limit')).toBe('100');
    const reset = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: null },
    });
    expect(reset.data!.data.storefront_rate_limit_per_minute).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a full window is asked again after a second
    const after = await get(project.keys.publishable_test.token);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-limit')).toBe('100');
  });

  test('storefront traffic does not spend the monthly quota, keeps answering once secret keys used it, and warns no one', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000, monthly_quota: 5 });
    for (let i = 0; i < 10; i++) expect((await get(project.keys.publishable_test.token)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(project.keys.secret_test.token)).status).toBe(200);
    const refused = await get(project.keys.secret_test.token);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error.code).toBe('quota_exceeded');
    expect((await get(project.keys.publishable_test.token)).status).toBe(200);
    const warnings = await app.deps.db.storeEvent.count({
      where: { projectId: project.project.id, type: 'usage.warning' },
    });
    expect(warnings).toBe(3); // 80, 90 and 100 % of the 5 secret-key requests, none from the 11 storefront ones
  });
});

describe("each storefront client spends at most its share of the store's storefront budget", () => {
  const from = (address: string, token: string, path = '/v1/products?limit=1', bearer?: string) =>
    fetch(`${proxied.baseUrl}${path}`, {
      headers: {
        'X-API-Key': token,
        'X-Forwarded-For': address,
        ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      },
    });

  test('the default share is a tenth of the storefront budget, a project setting of 1-100 percent', async () => {
    const project = await createProject(app, {}, {});
    expect(project.project.storefront_client_share_percent).toBe(10);
    const patch = (value: number) =>
      app.platform.PATCH('/platform/v1/projects/{id}', {
        params: { path: { id: project.project.id } },
        body: { storefront_client_share_percent: value },
      });
    expect((await patch(0)).response.status).toBe(400);
    expect((await patch(101)).response.status).toBe(400);
    expect((await patch(25)).data!.data.storefront_client_share_percent).toBe(25);
  });

  test('one client at its share gets 429 with the client policy while another client of the store answers 200', async () => {
    const project = await createProject(proxied, {}, { rate_limit_per_minute: 1000 });
    await proxied.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: 30 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await from('203.0.113.10', pk)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]); // a tenth of 30
    const refused = await from('203.0.113.10', pk);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('at most 3 storefront requests a minute'),
    });
    const reset = refused.headers.get('x-ratelimit-reset');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-policy')).toBe('"client";q=3;w=60');
    expect(refused.headers.get('ratelimit')).toBe(`"client";r=0;t=${reset}`);
    // Another shopper of the same store is served, its searches and sign-in included.
    const other = await from('203.0.113.11', pk);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-policy')).toBe('"storefront";q=30;w=60');
    // The refused requests spent nothing of the store's budget: 3 + 1 of 30 are used.
    expect(other.headers.get('x-ratelimit-remaining')).toBe('26');
    expect((await from('203.0.113.11', pk, '/v1/search?q=anything')).status).toBe(200);
    const registration = buildRegistration();
    const registered = await post(proxied, pk, '/v1/auth/register', registration, {
      'X-Forwarded-For': '203.0.113.12',
    });
    expect(registered.status).toBe(201);
    const { access_token } = (await json(registered)).data as { access_token: string };
    const me = await from('203.0.113.12', pk, '/v1/me', access_token);
    expect(me.status).toBe(200);
  });

  test('a signed-in customer spends one share across addresses; the store budget still bounds everyone', async () => {
    const project = await createProject(proxied, {}, { rate_limit_per_minute: 1000 });
    await proxied.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: 20, storefront_client_share_percent: 20 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const registered = await post(proxied, pk, '/v1/auth/register', buildRegistration(), {
      'X-Forwarded-For': '198.51.100.1',
    });
    expect(registered.status).toBe(201);
    const { access_token } = (await json(registered)).data as { access_token: string };
    // A share of 4 (20 % of 20): the registration was the first request of 198.51.100.1, not of the customer.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await from(`198.51.100.${2 + i}`, pk, '/v1/me', access_token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await from('198.51.100.9', pk, '/v1/me', access_token);
    expect((await json(refused)).error.message).toMatch(/^Too many requests from this customer/);
    // Anonymous clients: the store's 20 are spent by the registration, 4 /v1/me and 15 of these (refused requests
    // spend nothing of it); the 16th is refused by the store's budget, not by its client's share.
    const anonymous: Response[] = [];
    for (let i = 0; i < 16; i++) anonymous.push(await from(`192.0.2.${1 + Math.floor(i / 4)}`, pk));
    expect(anonymous.map((a) => a.status)).toEqual([...Array(15).fill(200), 429]);
    expect(anonymous[15].headers.get('ratelimit-policy')).toBe('"storefront";q=20;w=60');
  });
});

describe('an IPv6 client is its /56 network, since one subscriber holds a whole network of addresses', () => {
  const from = (address: string, token: string, path = '/v1/products?limit=1') =>
    fetch(`${proxied.baseUrl}${path}`, { headers: { 'X-API-Key': token, 'X-Forwarded-For': address } });

  test("addresses of one /56 share one client's share of the storefront budget; another /56 is another client", async () => {
    const project = await createProject(proxied, {}, { rate_limit_per_minute: 1000 });
    await proxied.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { storefront_rate_limit_per_minute: 30 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    // A visitor walking its own addresses (a new interface id, then another /64 of its delegated /56) each request.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await from(`2001:db8:77:${(i * 17).toString(16)}::${i + 1}`, pk)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]); // a tenth of 30, whichever addresses of the /56
    const refused = await from('2001:db8:77:ff:abcd::1', pk);
    expect(refused.headers.get('ratelimit-policy')).toBe('"client";q=3;w=60');
    // The next /56 is another subscriber; IPv4 clients are their own address as before.
    expect((await from('2001:db8:77:100::1', pk)).status).toBe(200);
    expect((await from('203.0.113.40', pk)).status).toBe(200);
  });

  test('sign-in attempts from addresses of one /56 spend one auth_attempts_per_ip_per_minute budget', async () => {
    const project = await createProject(proxied, {}, { rate_limit_per_minute: 1000 });
    await proxied.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { auth_attempts_per_ip_per_minute: 2 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const login = (address: string, i: number) =>
      post(
        proxied,
        pk,
        '/v1/auth/login',
        { email: `nobody${i}@example.com`, password: 'x'.repeat(8) },
        { 'X-Forwarded-For': address },
      );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(`2001:db8:5:${i}::${i + 9}`, i)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    expect((await login('2001:db8:6::1', 9)).status).toBe(401);
  });
});

describe('client shares across processes', () => {
  test('two app processes on one database, a share of 10: of 40 requests from one client at most 10 and at least 8 are accepted', async () => {
    const second = await startTestApp({ databaseUrl: app.deps.config.databaseUrl });
    try {
      const project = await createProject(app, {}, { rate_limit_per_minute: 100 });
      await roomInMinute(15);
      const pk = project.keys.publishable_test.token;
      const statuses: number[] = [];
      for (let batch = 0; batch < 4; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            fetch(`${(i % 2 === 0 ? app : second).baseUrl}/v1/products?limit=1`, {
              headers: { 'X-API-Key': pk },
            }).then((r) => r.status),
          ),
        );
        statuses.push(...answers);
      }
      const accepted = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(accepted).toBeLessThanOrEqual(10);
      expect(accepted).toBeGreaterThanOrEqual(8);
    } finally {
      await second.close();
    }
  });
});

describe('per-client budgets of sign-in, registration and password reset', () => {
  test('a client address past auth_attempts_per_ip_per_minute gets 429 rate_limited; other projects and secret-key reads are unaffected', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { auth_attempts_per_ip_per_minute: 3 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await post(app, pk, '/v1/auth/login', { email: `nobody${i}@example.com`, password: 'x'.repeat(8) })).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const refused = await post(app, pk, '/v1/auth/forgot-password', { email: 'someone@example.com' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await json(refused)).error).toMatchObject({ code: 'rate_limited' });
    // Without TRUST_PROXY a claimed X-Forwarded-For changes nothing.
    const claimed = await post(
      app,
      pk,
      '/v1/auth/login',
      { email: 'a@example.com', password: 'x'.repeat(8) },
      {
        'X-Forwarded-For': '198.51.100.7',
      },
    );
    expect(claimed.status).toBe(429);
    expect((await get(project.keys.secret_test.token, '/v1/customers?limit=1')).status).toBe(200);
  });

  test('behind a trusted proxy the address it appended to X-Forwarded-For is the client', async () => {
    const project = await createProject(proxied, {}, { rate_limit_per_minute: 1000 });
    await proxied.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { auth_attempts_per_ip_per_minute: 2 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const login = (forwarded: string) =>
      post(
        proxied,
        pk,
        '/v1/auth/login',
        { email: 'nobody@example.com', password: 'x'.repeat(8) },
        {
          'X-Forwarded-For': forwarded,
        },
      );
    expect((await login('203.0.113.1')).status).toBe(401);
    // A client-supplied first entry does not make a new client: the proxy's (last) entry does.
    expect((await login('192.0.2.99, 203.0.113.1')).status).toBe(401);
    expect((await login('203.0.113.1')).status).toBe(429);
    expect((await login('203.0.113.2')).status).toBe(401);
  });

  test('requests naming one email address past auth_attempts_per_email_per_minute get 429; other addresses go on', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { auth_attempts_per_email_per_minute: 2 },
    });
    await roomInMinute(15);
    const pk = project.keys.publishable_test.token;
    const forgot = (email: string) => post(app, pk, '/v1/auth/forgot-password', { email });
    expect((await forgot('victim@example.com')).status).toBe(200);
    expect((await forgot('Victim@Example.com')).status).toBe(200);
    const third = await forgot('VICTIM@example.com');
    expect(third.status).toBe(429);
    expect((await json(third)).error.message).toMatch(/this email address/);
    expect((await forgot('other@example.com')).status).toBe(200);
  });

  test('the defaults let a storefront test suite register and sign in 40 customers a minute from one address', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
    expect(project.project).toMatchObject({
      auth_attempts_per_ip_per_minute: 120,
      auth_attempts_per_email_per_minute: 20,
    });
    await roomInMinute(40);
    const pk = project.keys.publishable_test.token;
    for (let i = 0; i < 40; i++) {
      const registration = buildRegistration();
      expect((await post(app, pk, '/v1/auth/register', registration)).status).toBe(201);
      expect(
        (await post(app, pk, '/v1/auth/login', { email: registration.email, password: GOOD_PASSWORD })).status,
      ).toBe(200);
    }
  }, 120_000);
});
