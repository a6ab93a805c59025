import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { keepsSessions, poolOf } from '../../../src/db/client.js';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { startPgBouncer, type RunningPgBouncer } from '../../setup/pgbouncer.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';
import { json } from '../../setup/http.js';
import { eventually } from '../../setup/wait.js';

// Two app processes on one database through Debian's PgBouncer in transaction mode with a small server pool
// (3 connections for the two of them: consecutive statements of one client reach different server sessions),
// their sessions (change feed, pg-boss) on the direct URL as DATABASE_DIRECT_URL does.

let bouncer: RunningPgBouncer;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
beforeAll(async () => {
  database = await createTestDatabase();
  bouncer = await startPgBouncer(process.env.TEST_ADMIN_URL!, { poolSize: 3 });
  const pooled = bouncer.url(database.directUrl);
  const config = { databaseUrl: pooled, databaseDirectUrl: database.directUrl };
  a = await startTestApp({ databaseUrl: pooled, config });
  b = await startTestApp({ databaseUrl: pooled, config });
  store = await createProject(a);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await bouncer?.stop();
  await database?.drop();
});

const call = (app: TestApp, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${store.keys.secret_test.token}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('behind PgBouncer in transaction mode', () => {
  test('named prepared statements break there (a statement prepared on one server session is run on another), so the apps run theirs unnamed', async () => {
    const pool = new pg.Pool({ connectionString: bouncer.url(database.directUrl), max: 8 });
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, (_, n) => pool.query({ name: 'probe', text: 'SELECT $1::int AS n', values: [n] })),
      );
      const failures = results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0]).toMatch(/prepared statement "probe"/);
    } finally {
      await pool.end();
    }
    expect(keepsSessions(poolOf(a.deps.db)!)).toBe(false);
    expect(a.deps.authCache!.listening).toBe(true);
  });

  test('reads by id (the prepared-statement path) from both processes, 200 at once: every one answers 200 with the customer', async () => {
    const created = await json(await call(a, 'POST', '/v1/customers', buildCustomer()));
    const id = created.data.id as string;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, n) => call(n % 2 ? a : b, 'GET', `/v1/customers/${id}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    for (const answer of answers.slice(0, 5)) expect((await json(answer)).data.id).toBe(id);
  });

  test('one Idempotency-Key sent 30 times at once through both processes: one customer, every 201 the same one, the rest 409', async () => {
    const body = buildCustomer();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        call(n % 2 ? a : b, 'POST', '/v1/customers', body, { 'Idempotency-Key': 'bouncer-once' }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const ids = new Set<string>();
    for (const answer of answers) if (answer.status === 201) ids.add((await json(answer)).data.id);
    expect(ids.size).toBe(1);
    const replay = await call(a, 'POST', '/v1/customers', body, { 'Idempotency-Key': 'bouncer-once' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(replay)).data.id).toBe([...ids][0]);
    expect(await a.deps.db.customer.count({ where: { projectId: store.project.id, email: body.email } })).toBe(1);
  });

  test('one e-mail address created 20 times at once through both processes: one 201, nineteen 409', async () => {
    const body = buildCustomer();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => call(n % 2 ? a : b, 'POST', '/v1/customers', body)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
  });

  test('a limit of 10 a minute holds across both processes: 30 requests at once, 10 answered, 20 refused with 429', async () => {
    const limited = await createProject(a, {}, { rate_limit_per_minute: 10 });
    const left = 60 - new Date().getUTCSeconds();
    if (left < 10) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        fetch(`${(n % 2 ? a : b).baseUrl}/v1/customers?limit=1`, {
          headers: { Authorization: `Bearer ${limited.keys.secret_test.token}` },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  test('a key revoked through one process is refused by the other (the change feed on the direct URL)', async () => {
    const other = await createProject(a);
    const read = async (app: TestApp) =>
      (
        await fetch(`${app.baseUrl}/v1/events`, {
          headers: { Authorization: `Bearer ${other.keys.secret_test.token}` },
        })
      ).status;
    expect(await read(b)).toBe(200);
    await a.platform.DELETE('/platform/v1/keys/{id}', { params: { path: { id: other.keys.secret_test.id } } });
    expect(await eventually(async () => (await read(b)) === 401)).toBe(true);
  });
});
