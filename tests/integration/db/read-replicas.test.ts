import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { migrate } from '../../../src/db/migrate.js';
import { replicaName } from '../../../src/db/replicas.js';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { startPrimaryWithReplica, type PrimaryWithReplica } from '../../setup/streaming-replica.js';
import { startTestApp, TEST_METRICS_TOKEN, type TestApp } from '../../setup/test-app.js';

// Two app processes (a and b) on one primary with one streaming replica made by pg_basebackup -R, both reading
// the operations that tolerate lag from the replica (src/http/replica-reads.ts). `a` writes; `b` never does,
// so its reads show what the replica holds.

const MAX_LAG_MS = 3_000;
let pair: PrimaryWithReplica;
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
beforeAll(async () => {
  pair = await startPrimaryWithReplica();
  await migrate(pair.primaryUrl);
  const config = { databaseReplicaUrls: [pair.replicaUrl], databaseReplicaMaxLagMs: MAX_LAG_MS };
  a = await startTestApp({ databaseUrl: pair.primaryUrl, config: { ...config, databaseUrl: pair.primaryUrl } });
  b = await startTestApp({ databaseUrl: pair.primaryUrl, config: { ...config, databaseUrl: pair.primaryUrl } });
  store = await createProject(a);
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await pair?.stop();
});

const replica = () => replicaName(pair.replicaUrl);

const call = (app: TestApp, method: string, path: string, body?: unknown) =>
  fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${store.keys.secret_test.token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The value of one series of the app's /metrics (0 when absent). */
async function metric(app: TestApp, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (
    await fetch(`${app.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TEST_METRICS_TOKEN}` } })
  ).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    // Every series also carries the process label (`process="<hostname>:<pid>"`).
    const inside = line
      .slice(name.length + 1, line.indexOf('}'))
      .split(',')
      .filter((label) => !label.startsWith('process='));
    if (wanted.every((label) => inside.includes(label)) && inside.length === wanted.length)
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

const reads = (app: TestApp, target: string, reason: string) =>
  metric(app, 'commerce_db_routed_reads_total', { target, reason });

async function customerEmails(app: TestApp): Promise<string[]> {
  const response = await call(app, 'GET', '/v1/customers?limit=100');
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Array<{ email: string }> }).data.map((customer) => customer.email);
}

async function createCustomer(app: TestApp): Promise<string> {
  const body = buildCustomer();
  const response = await call(app, 'POST', '/v1/customers', body);
  expect(response.status).toBe(201);
  return body.email;
}

/** Runs `assertions` until they pass (the last failure is thrown after `timeoutMs`): for what a poll brings about. */
async function eventually(assertions: () => Promise<void>, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    try {
      return await assertions();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Writes WAL on the primary without going through an app (so no app sticks to the primary for it). */
async function writeOnPrimary(): Promise<void> {
  const client = new pg.Client({ connectionString: pair.primaryUrl });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS lag_probe (at timestamptz)');
    await client.query('INSERT INTO lag_probe VALUES (now())');
  } finally {
    await client.end();
  }
}

describe('read replicas (DATABASE_REPLICA_URL)', () => {
  test('the replica is a real streaming standby of the primary: what the primary commits, it replays', async () => {
    const email = await createCustomer(a);
    await eventually(async () => {
      const { rows } = await pair.onReplica(`SELECT count(*)::int AS n FROM customers WHERE email = '${email}'`);
      expect(rows[0].n).toBe(1);
    });
  });

  test('every operation that tolerates lag answers from the replica for a process that did not write to the project', async () => {
    const paths = [
      '/v1/search?q=shirt',
      '/v1/search/suggest?q=sh',
      '/v1/search/analytics/top-queries',
      '/v1/search/analytics/zero-results',
      '/v1/products',
      '/v1/customers',
      '/v1/orders',
      '/v1/draft-orders',
    ];
    const before = await reads(b, replica(), 'replica');
    for (const path of paths) expect([path, (await call(b, 'GET', path)).status]).toEqual([path, 200]);
    expect((await reads(b, replica(), 'replica')) - before).toBe(paths.length);
    // The replica's own statistics saw them: sessions of the apps' pools are open on it.
    const { rows } = await pair.onReplica(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'commerce' AND backend_type = 'client backend'",
    );
    expect(rows[0].n).toBeGreaterThan(1);
  });

  test('read-your-writes: with replay paused, the writer lists its new customer from the primary while the other process still reads the replica without it; once replayed, both read the replica', async () => {
    await pair.onReplica('SELECT pg_wal_replay_pause()');
    let email: string;
    try {
      email = await createCustomer(a);
      const writerBefore = await reads(a, 'primary', 'written');
      expect(await customerEmails(a)).toContain(email);
      expect((await reads(a, 'primary', 'written')) - writerBefore).toBe(1);

      const otherBefore = await reads(b, replica(), 'replica');
      expect(await customerEmails(b)).not.toContain(email);
      expect((await reads(b, replica(), 'replica')) - otherBefore).toBe(1);
    } finally {
      await pair.onReplica('SELECT pg_wal_replay_resume()');
    }
    await eventually(async () => {
      const writerBefore = await reads(a, replica(), 'replica');
      expect(await customerEmails(a)).toContain(email);
      expect((await reads(a, replica(), 'replica')) - writerBefore).toBe(1);
    });
    expect(await customerEmails(b)).toContain(email);
  });

  test('a replica lagging beyond DATABASE_REPLICA_MAX_LAG_MS leaves rotation (reads go to the primary) and comes back once it caught up', async () => {
    await pair.onReplica('SELECT pg_wal_replay_pause()');
    try {
      await writeOnPrimary();
      await eventually(async () => {
        expect(await metric(b, 'commerce_db_replica_in_rotation', { replica: replica() })).toBe(0);
      }, MAX_LAG_MS + 5_000);
      expect(await metric(b, 'commerce_db_replica_lag_seconds', { replica: replica() })).toBeGreaterThan(
        MAX_LAG_MS / 1000,
      );
      const before = await reads(b, 'primary', 'no_replica');
      await customerEmails(b);
      expect((await reads(b, 'primary', 'no_replica')) - before).toBe(1);
    } finally {
      await pair.onReplica('SELECT pg_wal_replay_resume()');
    }
    await eventually(async () => {
      expect(await metric(b, 'commerce_db_replica_in_rotation', { replica: replica() })).toBe(1);
    });
    const before = await reads(b, replica(), 'replica');
    await customerEmails(b);
    expect((await reads(b, replica(), 'replica')) - before).toBe(1);
  });

  test('a replica killed (SIGKILL) under a read load: no request fails, reads go on on the primary', async () => {
    const statuses: number[] = [];
    let running = true;
    const load = async () => {
      while (running) {
        for (const path of ['/v1/customers', '/v1/search?q=shirt', '/v1/products'])
          statuses.push((await call(b, 'GET', path)).status);
      }
    };
    const clients = Array.from({ length: 4 }, load);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const servedBefore = await reads(b, replica(), 'replica');
    expect(servedBefore).toBeGreaterThan(0);
    pair.killReplica();
    await eventually(async () => {
      expect(await metric(b, 'commerce_db_replica_in_rotation', { replica: replica() })).toBe(0);
    });
    const countedAfterKill = statuses.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(countedAfterKill);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await reads(b, 'primary', 'no_replica')).toBeGreaterThan(0);
  }, 60_000);
});
