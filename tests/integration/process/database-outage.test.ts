import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded-postgres.js';
import { CHANGE_FEED_APPLICATION_NAME } from '../../../src/shared/change-feed.js';
import { DURABLE, expectDurable } from '../../setup/durable-postgres.js';
import { json } from '../../setup/http.js';
import { startSmtpServer } from '../../setup/smtp.js';
import { exited, startMain, type Cleanups } from '../../setup/process.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
// Where the test got to, and the server's output: printed when it did not finish (a failure or jest's timeout), so
// a hang says where it hung. Every request and query below is bounded, so a hang is a failure at its line.
let reached = 'starting';
let finished = false;
let serverOutput = () => '';
afterAll(async () => {
  if (!finished)
    console.log(`database outage: stopped after "${reached}"; server output:\n${serverOutput().slice(-6_000)}`);
  for (const cleanup of cleanups.reverse()) await cleanup();
});
// A request that cannot hang the test: aborted after 15 s, as every load request is.
const fetchBounded = (url: string, init: RequestInit = {}) =>
  fetch(url, { signal: AbortSignal.timeout(15_000), ...init });

// The bound on any answer while the database is down (the pool's 5 s connect timeout), plus slack for a
// loaded 2-core machine.
const ANSWER_BOUND_MS = 6_500;
const PLATFORM_TOKEN = 'outage-test-platform-token-0123456789';

interface Answer {
  op: string;
  started: number;
  ended: number;
  status: number; // -1: no HTTP answer (connection error or our own 15 s abort)
  retryAfter: string | null;
  code?: string;
  error?: string;
}

describe('database outage (a server process over a PostgreSQL the test stops and starts)', () => {
  test('while PostgreSQL is down every call answers 503 within the bound; afterwards the same process serves again, jobs run, caches are fresh, no acknowledged write is lost, and it still stops cleanly', async () => {
    // PostgreSQL of its own, so the test can stop it under the server and start it again on the same port.
    const pgDir = mkdtempSync(path.join(os.tmpdir(), 'outage-pg-'));
    const port = await freePort();
    // Durable as a deployment's (the test run's shared cluster is not), so "no acknowledged write is lost" is
    // checked with every commit flushed to the WAL on disk before it is acknowledged.
    let database: EmbeddedDatabase | undefined = await startEmbeddedPostgres({
      dir: pgDir,
      persistent: true,
      whenInUse: 'refuse',
      port,
      settings: DURABLE,
    });
    cleanups.push(async () => {
      await database?.stop().catch(() => {});
      rmSync(pgDir, { recursive: true, force: true });
    });
    const databaseUrl = database.url;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outage-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.close());

    const server = await startMain(
      {
        DATABASE_URL: databaseUrl,
        DEMO_PROJECT: 'true',
        DATA_DIR: dataDir,
        PLATFORM_TOKEN,
        SMTP_URL: smtp.url,
        RESPONSE_CHECK: 'true',
        LOG_LEVEL: 'warn',
      },
      cleanups,
    );
    cleanups.push(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
    });
    const { baseUrl } = server;
    serverOutput = server.output;
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const projectId: string = demo.project_id;
    const secret: string = demo.keys.secret_test.token;
    const call = async (op: string, method: string, url: string, body?: unknown, token = secret): Promise<Answer> => {
      const started = Date.now();
      try {
        const response = await fetchBounded(`${baseUrl}${url}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body !== undefined && { 'Content-Type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        const parsed = text ? JSON.parse(text) : undefined;
        return {
          op,
          started,
          ended: Date.now(),
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          code: parsed?.error?.code ?? parsed?.data?.id,
        };
      } catch (error) {
        return { op, started, ended: Date.now(), status: -1, retryAfter: null, error: String(error) };
      }
    };

    // A steady stream of reads and creates from four clients, recording every answer and every acknowledged create.
    const answers: Answer[] = [];
    const createdCustomers: string[] = [];
    const createdProducts: string[] = [];
    let loading = true;
    let sequence = 0;
    const client = async (worker: number) => {
      while (loading) {
        const n = sequence++;
        let answer: Answer;
        switch (n % 4) {
          case 0:
            // Half of them a read by id (a prepared statement on the pool, not through Prisma) of a customer made before.
            answer =
              n % 8 === 0 && createdCustomers.length > 0
                ? await call('getCustomer', 'GET', `/v1/customers/${createdCustomers.at(-1)}`)
                : await call('listCustomers', 'GET', '/v1/customers?limit=5');
            break;
          case 1:
            answer = await call('createCustomer', 'POST', '/v1/customers', {
              email: `outage-${worker}-${n}@example.com`,
              first_name: 'Out',
              last_name: `Age ${n}`,
            });
            if (answer.status === 201) createdCustomers.push(answer.code!);
            break;
          case 2:
            answer = await call('listProducts', 'GET', '/v1/products?limit=3');
            break;
          default:
            answer = await call('createProduct', 'POST', '/v1/products', {
              title: `Outage product ${n}`,
              variants: [{ title: 'Default', price: 1000 + n }],
            });
            if (answer.status === 201) createdProducts.push(answer.code!);
        }
        answers.push(answer);
        // Paced, not flooding: the point is requests arriving throughout, on a machine shared with other tests.
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const load = [0, 1, 2, 3].map(client);
    const okSince = (since: number) =>
      answers.filter((a) => a.started >= since && a.status >= 200 && a.status < 300).length;
    expect(await eventually(() => okSince(0) >= 20, { timeoutMs: 30_000, intervalMs: 50 })).toBe(true);

    // A key that was never used (so no process has it cached): during the outage it must answer 503, not 401.
    const freshKey = await fetchBounded(`${baseUrl}/platform/v1/projects/${projectId}/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${PLATFORM_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'secret', mode: 'test' }),
    });
    expect(freshKey.status).toBe(201);
    const freshToken: string = (await json(freshKey)).data.token;
    // A key used (and so cached) before the outage, revoked behind the server's back after it: the change feed must be back.
    const revokedLater = await json(
      await fetchBounded(`${baseUrl}/platform/v1/projects/${projectId}/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${PLATFORM_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: 'secret', mode: 'test' }),
      }),
    );
    expect((await call('warm', 'GET', '/v1/customers?limit=1', undefined, revokedLater.data.token)).status).toBe(200);

    // Stop PostgreSQL under load.
    reached = 'serving before the outage';
    const stopBegan = Date.now();
    await database.stop();
    database = undefined;
    reached = 'stopped PostgreSQL';
    const down = Date.now();
    // Down for a few seconds and a good number of requests.
    expect(
      await eventually(() => Date.now() - down >= 3_000 && answers.filter((a) => a.started >= down).length >= 40, {
        timeoutMs: 60_000,
        intervalMs: 50,
      }),
    ).toBe(true);
    const health = await fetchBounded(`${baseUrl}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('5');
    expect(await json(health)).toEqual({ status: 'unavailable' });
    // Load balancers route on readiness: not ready during the outage, ready again after it (below).
    const readiness = await fetchBounded(`${baseUrl}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await json(readiness)).toEqual({ status: 'unavailable', reason: 'The database does not answer.' });
    for (const token of [freshToken, `sk_test_${'x'.repeat(40)}`]) {
      const answer = await call('uncachedKey', 'GET', '/v1/customers?limit=1', undefined, token);
      expect(answer).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: '5' });
      answers.push(answer);
    }

    // Start it again on the same port and data.
    reached = 'starting PostgreSQL again';
    const startBegan = Date.now();
    database = await startEmbeddedPostgres({
      dir: pgDir,
      persistent: true,
      whenInUse: 'refuse',
      port,
      settings: DURABLE,
    });
    reached = 'started again';
    const sql = new pg.Client({ connectionString: databaseUrl, query_timeout: 15_000 });
    sql.on('error', () => {}); // the test stops the database under this connection at the end
    await sql.connect();
    cleanups.push(() => sql.end().catch(() => {}));
    await expectDurable(sql);
    // Behind the server's back, before its listener can be back: a customer deleted with no process to hear of it.
    const victim = createdCustomers[0];
    await sql.query('UPDATE customers SET deleted_at = now() WHERE id = $1', [victim]);

    // The same process recovers by itself.
    reached = 'waiting for /healthz after the restart';
    expect(
      await eventually(async () => (await fetchBounded(`${baseUrl}/healthz`)).status === 200, {
        timeoutMs: 30_000,
        intervalMs: 100,
      }),
    ).toBe(true);
    expect((await fetchBounded(`${baseUrl}/readyz`)).status).toBe(200);
    const up = Date.now();
    expect(await eventually(() => okSince(up) >= 24, { timeoutMs: 60_000, intervalMs: 50 })).toBe(true);
    reached = 'serving again';
    loading = false;
    await Promise.all(load);
    expect(server.child.exitCode).toBeNull();

    // Every answer: 2xx or 503, never 500, never a dropped connection, never slower than the bound while down.
    const statuses = new Map<number, number>();
    for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const unexpected = answers.filter((a) => ![200, 201, 503].includes(a.status));
    expect(unexpected).toEqual([]);
    // Bounded while the database was away (stopping, down, starting); outside that, the 15 s abort (-1) is the limit.
    const slow = answers.filter(
      (a) => a.started >= stopBegan && a.started <= up && a.ended - a.started > ANSWER_BOUND_MS,
    );
    expect(slow).toEqual([]);
    const whileDown = answers.filter((a) => a.started >= down && a.ended <= startBegan);
    expect(whileDown.length).toBeGreaterThanOrEqual(40);
    for (const answer of whileDown)
      expect(answer).toMatchObject({ status: 503, retryAfter: '5', code: 'service_unavailable' });
    for (const answer of answers.filter((a) => a.status === 503))
      expect(answer).toMatchObject({ retryAfter: '5', code: 'service_unavailable' });
    // Both ways to the database answered 503: Prisma's (lists, products) and the prepared statements' (customer read by id and create).
    expect([...new Set(answers.filter((a) => a.status === 503).map((a) => a.op))]).toEqual(
      expect.arrayContaining(['listCustomers', 'createCustomer', 'listProducts', 'createProduct', 'getCustomer']),
    );
    // Requests never failed outside the outage (from the stop's start until the database answered again).
    const failedOutside = answers.filter((a) => a.status === 503 && (a.ended < stopBegan || a.started > up));
    expect(failedOutside).toEqual([]);

    // No acknowledged write was lost.
    const customers = await sql.query('SELECT id FROM customers WHERE id = ANY($1)', [createdCustomers]);
    expect(customers.rowCount).toBe(createdCustomers.length);
    const products = await sql.query('SELECT id FROM products WHERE id = ANY($1) AND deleted_at IS NULL', [
      createdProducts,
    ]);
    expect(products.rowCount).toBe(createdProducts.length);

    reached = 'answers checked';
    // The change feed is back: it listens again, a notification from elsewhere is heard (a revoked key that was
    // cached is refused), and nothing counted before the outage is served stale.
    expect(
      await eventually(
        async () =>
          (
            await sql.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [
              CHANGE_FEED_APPLICATION_NAME,
            ])
          ).rowCount! > 0,
        { timeoutMs: 20_000, intervalMs: 100 },
      ),
    ).toBe(true);
    expect((await call('cached', 'GET', '/v1/customers?limit=1', undefined, revokedLater.data.token)).status).toBe(200);
    await sql.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revokedLater.data.id]);
    await sql.query("SELECT pg_notify('auth_changed', 'key:' || $1::text)", [revokedLater.data.id]);
    expect(
      await eventually(
        async () =>
          (await call('revoked', 'GET', '/v1/customers?limit=1', undefined, revokedLater.data.token)).status === 401,
        { timeoutMs: 10_000, intervalMs: 100 },
      ),
    ).toBe(true);
    const counted = await sql.query(
      'SELECT count(*)::int AS n FROM customers WHERE project_id = $1 AND deleted_at IS NULL',
      [projectId],
    );
    const listed = await json(
      await fetchBounded(`${baseUrl}/v1/customers?limit=1`, { headers: { Authorization: `Bearer ${secret}` } }),
    );
    expect(listed.pagination.total).toBe(counted.rows[0].n);
    expect(
      (await fetchBounded(`${baseUrl}/v1/customers/${victim}`, { headers: { Authorization: `Bearer ${secret}` } }))
        .status,
    ).toBe(404);

    reached = 'change feed checked';
    // pg-boss works again: a job queued after recovery (the e-mail of a draft order sent now) runs.
    const auth = { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' };
    const draft = await json(
      await fetchBounded(`${baseUrl}/v1/draft-orders`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ currency: 'USD', customer_email: 'after-outage@example.com' }),
      }),
    );
    const items = await fetchBounded(`${baseUrl}/v1/draft-orders/${draft.data.id}/items`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ items: [{ title: 'Consulting', unit_price: 5000, quantity: 1 }] }),
    });
    expect(items.status).toBe(201);
    const sent = await fetchBounded(`${baseUrl}/v1/draft-orders/${draft.data.id}/send`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    expect(sent.status).toBe(200);
    const mail = await smtp.waitFor(1, 60_000);
    expect(mail[0].envelope.to).toContain('after-outage@example.com');

    const in503 = (from: number, to: number) =>
      answers.filter((a) => a.status === 503 && a.started >= from && a.started < to).length;
    console.log(
      `database outage: ${answers.length} answers (${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}); ` +
        `stopping took ${down - stopBegan} ms (${in503(stopBegan, down)} 503s), down ${startBegan - down} ms (${in503(down, startBegan)} 503s), ` +
        `restart to healthy ${up - startBegan} ms (${in503(startBegan, up)} 503s); slowest answer ${Math.max(...answers.map((a) => a.ended - a.started))} ms; ` +
        `${createdCustomers.length + createdProducts.length} acknowledged creates all present`,
    );
    // Stopped while its database is down, the server still stops, in bounded time.
    reached = 'stopping';
    await database.stop();
    database = undefined;
    const stopping = Date.now();
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(30_000);
    // The outage is logged as such, without stack traces.
    expect(server.output()).not.toMatch(/^\s+at /m);
    expect(server.output()).not.toMatch(/\bat [^\s]+ \([^)]*:\d+:\d+\)/); // stack frames inside JSON log lines too
    expect(server.output()).not.toContain('[object Object]');
    finished = true;
  }, 240_000);
});
