import os from 'node:os';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useApp } from '../../setup/store.js';
import { TEST_METRICS_TOKEN } from '../../setup/test-app.js';

/** A port nothing listens on right now (the kernel's pick, released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let metricsPort = 0;
// Before the app's own beforeAll (hooks run in the order registered): its options read the port.
beforeAll(async () => {
  metricsPort = await freePort();
});
const app = useApp(() => ({ config: { metricsPort } }));
const withoutToken = useApp({ config: { metricsToken: undefined } });

const scrape = async (token = TEST_METRICS_TOKEN) =>
  fetch(`${app.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });

describe('GET /metrics', () => {
  test('with METRICS_TOKEN: the Prometheus text with requests, pool, queues, caches and process series', async () => {
    const project = await createProject(app, {}, { rate_limit_per_minute: 2 });
    const get = () =>
      fetch(`${app.baseUrl}/v1/customers?limit=1`, {
        headers: { Authorization: `Bearer ${project.keys.secret_test.token}` },
      });
    const statuses = [];
    for (let n = 0; n < 3; n++) statuses.push((await get()).status);
    expect(statuses).toContain(429);
    expect((await fetch(`${app.baseUrl}/no-such-path`)).status).toBe(404);

    const answer = await scrape();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const labelled = await answer.text();
    // Every series carries this process's label (hostname:pid): processes behind one port or scrape stay apart.
    const label = `process="${os.hostname()}:${process.pid}"`;
    const series = labelled.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(series.filter((line) => !line.includes(label))).toEqual([]);
    const text = labelled.replaceAll(`,${label}`, '').replaceAll(`{${label}}`, '').replaceAll(`{${label},`, '{');
    expect(text).toMatch(/^commerce_http_requests_total\{operation="listCustomers",status="200"\} [1-9]/m);
    expect(text).toMatch(/^commerce_http_requests_total\{operation="listCustomers",status="429"\} [1-9]/m);
    expect(text).toMatch(/^commerce_http_requests_total\{operation="unmatched",status="404"\} [1-9]/m);
    expect(text).toMatch(/^commerce_http_request_duration_seconds_bucket\{le="0\.1",operation="listCustomers"\} /m);
    expect(text).toMatch(/^commerce_rate_limit_refusals_total\{code="rate_limited"\} [1-9]/m);
    expect(text).toMatch(/^commerce_db_pool_connections\{state="in_use"\} \d+/m);
    expect(text).toMatch(/^commerce_db_pool_connections\{state="waiting"\} \d+/m);
    expect(text).toMatch(/^commerce_job_queue_jobs\{queue="send-email",state="ready"\} \d+/m);
    expect(text).toMatch(/^commerce_cache_hits\{cache="listTotals"\} \d+/m);
    expect(text).toMatch(/^commerce_cache_misses\{cache="searchAnswers"\} \d+/m);
    expect(text).toMatch(/^commerce_process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^commerce_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toContain('# TYPE commerce_webhook_attempt_duration_seconds histogram');
    expect(text).toMatch(/^commerce_webhook_deliveries_pending \d+$/m);
    // The key's secret never appears in a label.
    expect(text).not.toContain(project.keys.secret_test.token);
  });

  test('a missing or wrong token answers 401; the scrape itself is not rate limited', async () => {
    const missing = await fetch(`${app.baseUrl}/metrics`);
    expect(missing.status).toBe(401);
    expect((await json(missing)).error.code).toBe('unauthorized');
    const wrong = await scrape('wrong-metrics-token-0123456789');
    expect(wrong.status).toBe(401);
    expect(await json(wrong)).toEqual({ error: { code: 'unauthorized', message: 'Invalid metrics token.' } });
    expect(wrong.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('without METRICS_TOKEN the path does not exist: 404', async () => {
    const answer = await fetch(`${withoutToken.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${TEST_METRICS_TOKEN}` },
    });
    expect(answer.status).toBe(404);
    expect((await json(answer)).error.code).toBe('not_found');
  });
});

describe('METRICS_PORT', () => {
  test('serves the same text on its own port without a token, and nothing else', async () => {
    const answer = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('# TYPE commerce_http_requests_total counter');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/customers`)).status).toBe(404);
  });
});

describe('GET /readyz', () => {
  test('200 while the database answers and every migration is applied; 503 with the reason while one is missing', async () => {
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: 'ready' });
    const [latest] = await app.deps.db.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`;
    await app.deps.db.$executeRaw`UPDATE "_prisma_migrations" SET finished_at = NULL WHERE id = ${latest.id}`;
    try {
      const unready = await fetch(`${app.baseUrl}/readyz`);
      expect(unready.status).toBe(503);
      expect(unready.headers.get('retry-after')).toBe('5');
      expect(await json(unready)).toEqual({ status: 'unavailable', reason: '1 migration is not applied yet.' });
    } finally {
      await app.deps.db.$executeRaw`UPDATE "_prisma_migrations" SET finished_at = now() WHERE id = ${latest.id}`;
    }
    expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
  });
});
