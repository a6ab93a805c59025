import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { fetchRetrying503, startHaproxy } from '../../setup/haproxy.js';
import { startMain, type Cleanups } from '../../setup/process.js';
import { startPrimaryWithReplica } from '../../setup/streaming-replica.js';
import type { TestApp } from '../../setup/test-app.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'consistency-token-platform-token-0123';
const METRICS_TOKEN = 'consistency-token-metrics-token-01';

/** `commerce_db_routed_reads_total` of one API process for `reason` (any target), summed. */
async function routed(baseUrl: string, reason: string): Promise<number> {
  const text = await (
    await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('commerce_db_routed_reads_total{') && line.includes(`reason="${reason}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('consistency tokens through the load balancer, replay paused on the replica', () => {
  test('a write answers with X-Consistency-Token; the SDK sends it back, so every process answers its list with the write, while reads without it from the other process still miss it', async () => {
    const pair = await startPrimaryWithReplica();
    cleanups.push(() => pair.stop());
    const env = {
      DATABASE_URL: pair.primaryUrl,
      DATABASE_REPLICA_URL: pair.replicaUrl,
      // The replica stays in rotation while paused for the whole test.
      DATABASE_REPLICA_MAX_LAG_MS: '120000',
      PLATFORM_TOKEN,
      METRICS_TOKEN,
      RESPONSE_CHECK: 'true',
      RUN_JOBS: 'false',
    };
    const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'token-api-')));
    cleanups.push(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    const api1 = await startMain({ ...env, DATA_DIR: dirs[0] }, cleanups);
    const api2 = await startMain({ ...env, DATA_DIR: dirs[1] }, cleanups);
    const haproxy = await startHaproxy(
      [api1, api2].map((api, n) => ({ name: `api${n + 1}`, port: Number(new URL(api.baseUrl).port) })),
    );
    cleanups.push(() => haproxy.stop());
    expect(
      await eventually(async () => (await fetch(`${haproxy.baseUrl}/readyz`)).status === 200, { timeoutMs: 10_000 }),
    ).toBe(true);

    const platform = createCommerceClient({
      baseUrl: haproxy.baseUrl,
      apiKey: PLATFORM_TOKEN,
      fetch: fetchRetrying503,
    });
    const store = await createProject({ platform } as TestApp);
    const secret = store.keys.secret_test.token;
    // Both processes read the project from the replica once it has replayed the project's creation.
    const listed = async (headers: Record<string, string> = {}) => {
      const response = await fetch(`${haproxy.baseUrl}/v1/customers?limit=100`, {
        headers: { Authorization: `Bearer ${secret}`, ...headers },
      });
      expect(response.status).toBe(200);
      return {
        by: response.headers.get('x-served-by'),
        emails: ((await response.json()) as { data: Array<{ email: string }> }).data.map((c) => c.email),
      };
    };
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await pair.onReplica('SELECT pg_wal_replay_pause()');

    const client = createCommerceClient({ baseUrl: haproxy.baseUrl, apiKey: secret });
    const body = buildCustomer();
    const created = await client.POST('/v1/customers', { body });
    expect(created.response.status).toBe(201);
    const token = created.response.headers.get('x-consistency-token');
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const writer = created.response.headers.get('x-served-by');

    // Without the token, the process that did not take the write answers from the paused replica: the write is missing.
    const plain = await Promise.all(Array.from({ length: 4 }, () => listed()));
    const other = plain.filter((answer) => answer.by !== writer);
    expect(other.length).toBeGreaterThan(0);
    for (const answer of other) expect(answer.emails).not.toContain(body.email);

    // With the SDK (it carries the token) every answer, from either process, has it.
    const before = await routed(writer === 'api1' ? api2.baseUrl : api1.baseUrl, 'token');
    const servedBy = new Set<string | null>();
    for (let n = 0; n < 6; n++) {
      const page = await client.GET('/v1/customers', { params: { query: { limit: 100 } } });
      expect(page.response.status).toBe(200);
      servedBy.add(page.response.headers.get('x-served-by'));
      expect(page.data!.data.map((customer) => customer.email)).toContain(body.email);
    }
    expect(servedBy).toEqual(new Set(['api1', 'api2']));
    expect((await routed(writer === 'api1' ? api2.baseUrl : api1.baseUrl, 'token')) - before).toBeGreaterThanOrEqual(3);

    // Replayed: the replica serves token-bearing reads again.
    await pair.onReplica('SELECT pg_wal_replay_resume()');
    const replicaBefore = (await routed(api1.baseUrl, 'replica')) + (await routed(api2.baseUrl, 'replica'));
    expect(
      await eventually(
        async () => {
          const page = await client.GET('/v1/customers', { params: { query: { limit: 100 } } });
          return (
            page.data!.data.some((customer) => customer.email === body.email) &&
            (await routed(api1.baseUrl, 'replica')) + (await routed(api2.baseUrl, 'replica')) > replicaBefore
          );
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      ),
    ).toBe(true);
    expect((await listed({ 'X-Consistency-Token': token! })).emails).toContain(body.email);
  }, 180_000);
});
