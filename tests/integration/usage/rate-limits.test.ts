import { describe, expect, test } from '@jest/globals';
import { purgeRateWindows } from '../../../src/modules/usage/retention.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { startTestApp } from '../../setup/test-app.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

const get = (baseUrl: string, token: string, path = '/v1/customers?limit=1') =>
  fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });

/** Waits (at most 15 s) until at least `seconds` are left in the current minute, so a test's requests share one window. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}

describe('rate limit per minute', () => {
  test('answers carry X-RateLimit-Limit, -Remaining and -Reset, errors included', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 50 });
    const token = project.keys.secret_test.token;
    await roomInMinute(5);
    const ok = await get(app.baseUrl, token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('50');
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBe(49);
    const reset = Number(ok.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    const missing = await get(app.baseUrl, token, '/v1/customers/cus_01jd5p0a2c4e6g8j0l2n4q6s8u');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-limit')).toBe('50');
    expect(Number(missing.headers.get('x-ratelimit-remaining'))).toBe(48);
  });

  test('answers carry the IETF RateLimit-Policy and RateLimit fields of the "minute" policy, with the same numbers', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 50 });
    const token = project.keys.secret_test.token;
    await roomInMinute(5);
    for (const [path, status, remaining] of [
      ['/v1/customers?limit=1', 200, 49],
      ['/v1/customers/cus_01jd5p0a2c4e6g8j0l2n4q6s8u', 404, 48],
    ] as const) {
      const response = await get(app.baseUrl, token, path);
      expect(response.status).toBe(status);
      expect(response.headers.get('ratelimit-policy')).toBe('"minute";q=50;w=60');
      const reset = response.headers.get('x-ratelimit-reset');
      expect(response.headers.get('ratelimit')).toBe(`"minute";r=${remaining};t=${reset}`);
    }
  });

  test('a project limited to 5 gets 5 answers, then 429 rate_limited with Retry-After to the next minute', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 5 });
    await roomInMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(app.baseUrl, project.keys.secret_test.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await get(app.baseUrl, project.keys.secret_test.token);
    expect(refused.status).toBe(429);
    expect((await json(refused)).error).toMatchObject({ code: 'rate_limited' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60 - new Date().getUTCSeconds() + 1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
  });

  test('a PATCH of the limit takes effect within a second', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 2 });
    await roomInMinute(10);
    await get(app.baseUrl, project.keys.secret_test.token);
    await get(app.baseUrl, project.keys.secret_test.token);
    expect((await get(app.baseUrl, project.keys.secret_test.token)).status).toBe(429);
    const patched = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { rate_limit_per_minute: 10 },
    });
    expect(patched.response.status).toBe(200);
    const deadline = Date.now() + 1000;
    let status = 0;
    while (Date.now() < deadline && status !== 200)
      status = (await get(app.baseUrl, project.keys.secret_test.token)).status;
    expect(status).toBe(200);
  });

  test('the secret keys of a project (test and live) share its limit; other projects are unaffected', async () => {
    const limited = await createProject(app, {}, { rate_limit_per_minute: 1 });
    await roomInMinute(10);
    expect((await get(app.baseUrl, limited.keys.secret_test.token)).status).toBe(200);
    expect((await get(app.baseUrl, limited.keys.secret_live.token)).status).toBe(429);
    const other = await createProject(app, {}, { rate_limit_per_minute: 1 });
    expect((await get(app.baseUrl, other.keys.secret_test.token)).status).toBe(200);
  });

  test('health, documents and the platform API do not count and carry no rate-limit headers', async () => {
    const health = await fetch(`${app.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('limits across processes', () => {
  test('two app processes on one database, limit 100: of 300 requests at most 100 and at least 95 are accepted', async () => {
    const second = await startTestApp({ databaseUrl: app.deps.config.databaseUrl });
    try {
      const project = await createProject(app, {}, { rate_limit_per_minute: 100 });
      const token = project.keys.secret_test.token;
      await roomInMinute(25);
      const statuses: number[] = [];
      for (let batch = 0; batch < 15; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            get(i % 2 === 0 ? app.baseUrl : second.baseUrl, token).then((r) => r.status),
          ),
        );
        statuses.push(...answers);
      }
      const accepted = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(accepted).toBeLessThanOrEqual(100);
      expect(accepted).toBeGreaterThanOrEqual(95);
    } finally {
      await second.close();
    }
  }, 120_000); // a second app process and 300 requests: past the default 30 s on a slow, fully loaded host
});

describe('monthly quota', () => {
  test('with monthly_quota 10 the 11th request of the month is 429 quota_exceeded; usage.warning recorded at 8, 9 and 10, once each', async () => {
    const project = await createProject(
      app,
      { contact_email: 'ops@example.com' },
      { rate_limit_per_minute: 1000, monthly_quota: 10 },
    );
    const token = project.keys.secret_test.token;
    // The PATCH that set the limits went to the platform API, which does not count.
    for (let i = 0; i < 10; i++) expect((await get(app.baseUrl, token)).status).toBe(200);
    const sent = Date.now();
    const refused = await get(app.baseUrl, token);
    const answered = Date.now();
    expect(refused.status).toBe(429);
    expect((await json(refused)).error).toMatchObject({ code: 'quota_exceeded' });
    // The seconds to the start of next month (UTC) at the moment the server answered: between sending and receiving.
    const now = new Date(sent);
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((nextMonth - sent) / 1000));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((nextMonth - answered) / 1000));

    const events = await app.deps.db.storeEvent.findMany({
      where: { projectId: project.project.id, type: 'usage.warning' },
      orderBy: { createdAt: 'asc' },
    });
    expect(events.map((e) => e.summary)).toEqual([
      expect.stringContaining('80 %'),
      expect.stringContaining('90 %'),
      expect.stringContaining('100 %'),
    ]);
    expect(
      events.every(
        (e) => e.actorType === 'system' && e.actorId === 'system:usage' && e.resourceId === project.project.id,
      ),
    ).toBe(true);
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: project.project.id }, query: { to: 'ops@example.com' } },
    });
    expect(outbox.data!.data.map((e) => e.template)).toEqual(['usage_warning', 'usage_warning', 'usage_warning']);
    expect(outbox.data!.data.map((e) => (e.data as { threshold: number }).threshold).sort((a, b) => a - b)).toEqual([
      80, 90, 100,
    ]);
    expect(outbox.data!.data[0].data).toMatchObject({
      project_id: project.project.id,
      period: now.toISOString().slice(0, 7),
      quota: 10,
    });
  });
});

describe('a changed quota applies at once', () => {
  test('a monthly_quota lowered below what this process leased is enforced on the next requests, not once its block is spent', async () => {
    // The default quota (1,000,000) makes the process lease a block of 10,000 requests on its first one.
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
    const token = project.keys.secret_test.token;
    expect((await get(app.baseUrl, token)).status).toBe(200);
    const lowered = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { monthly_quota: 3 },
    });
    expect(lowered.response.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(app.baseUrl, token)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const refused = await get(app.baseUrl, token);
    expect((await json(refused)).error).toMatchObject({ code: 'quota_exceeded' });
    // What was leased and not spent went back: the month's count is what was served.
    const month = await app.deps.db.rateWindow.findFirst({ where: { projectId: project.project.id, kind: 'month' } });
    expect(month!.used).toBe(3);
    const raised = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { monthly_quota: 5 },
    });
    expect(raised.response.status).toBe(200);
    const after: number[] = [];
    for (let i = 0; i < 3; i++) after.push((await get(app.baseUrl, token)).status);
    expect(after).toEqual([200, 200, 429]);
  });

  test('a quota lowered through one process applies in another that leased a block, once it hears of the change', async () => {
    const second = await startTestApp({ databaseUrl: app.deps.config.databaseUrl });
    try {
      const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
      const token = project.keys.secret_test.token;
      // Each process leases its block (10,000 of the default quota) on its first request.
      expect((await get(app.baseUrl, token)).status).toBe(200);
      expect((await get(second.baseUrl, token)).status).toBe(200);
      const heard = new Promise<void>((resolve) =>
        second.deps.authCache!.feed.on('auth_changed', (subject) => {
          if (subject === `project:${project.project.id}`) resolve();
        }),
      );
      await app.platform.PATCH('/platform/v1/projects/{id}', {
        params: { path: { id: project.project.id } },
        body: { monthly_quota: 4 },
      });
      await heard;
      // Both give their blocks back on their next request: 2 of the 4 are left, whichever process serves them.
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await get((i % 2 === 0 ? app : second).baseUrl, token)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(2);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      const month = await app.deps.db.rateWindow.findFirst({ where: { projectId: project.project.id, kind: 'month' } });
      expect(month!.used).toBe(4);
    } finally {
      await second.close();
    }
  });

  test('a rate_limit_per_minute lowered below what this process leased is enforced on the next requests', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 100_000 });
    const token = project.keys.secret_test.token;
    await roomInMinute(10);
    expect((await get(app.baseUrl, token)).status).toBe(200);
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { rate_limit_per_minute: 3 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(app.baseUrl, token)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe('purge-rate-windows job', () => {
  test('removes minute windows older than an hour and keeps the current ones', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 1000 });
    await get(app.baseUrl, project.keys.secret_test.token);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await app.deps.db.rateWindow.create({
      data: { projectId: project.project.id, kind: 'minute', windowStart: old, used: 3, lastGrant: 1 },
    });
    await purgeRateWindows(app.deps.db);
    const left = await app.deps.db.rateWindow.findMany({ where: { projectId: project.project.id } });
    expect(left.map((w) => w.kind).sort()).toEqual(['minute', 'month']);
    expect(left.every((w) => w.windowStart.getTime() !== old.getTime())).toBe(true);
  });
});
