import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import { CHANGE_FEED_APPLICATION_NAME } from '../../../src/shared/change-feed.js';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { guideBlock, localised } from '../../setup/deploy-guide.js';
import { fetchRetrying503, startHaproxy } from '../../setup/haproxy.js';
import { startPgBouncer } from '../../setup/pgbouncer.js';
import { startMain, type Cleanups } from '../../setup/process.js';
import { startPrimaryWithReplica } from '../../setup/streaming-replica.js';
import type { TestApp } from '../../setup/test-app.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'failover-test-platform-token-0123456789';
// The password of PgBouncer's admin user (the guide's admin_users = postgres) in the test's userlist.txt.
const PGBOUNCER_ADMIN_PASSWORD = 'change-me-pgbouncer-admin';
const REPLICATOR_PASSWORD = 'change-me-replicator';
// docs/deploy.md, Failover: clients see 503s from the primary's loss until at most this long after PgBouncer's
// RELOAD (PgBouncer's server_login_retry of 1 s, then HAProxy's two health checks 250 ms apart to bring the
// processes back), with slack for a loaded 2-CPU machine.
const AFTER_REPOINT_BOUND_MS = 3_000;

/** One HTTP attempt of a client: when, and what came back (-1: no HTTP answer). */
interface Attempt {
  started: number;
  ended: number;
  status: number;
}

const execFileAsync = promisify(execFile);
const idOf = async (name: string, flag: '-u' | '-g') => Number((await execFileAsync('id', [flag, name])).stdout.trim());

/** Runs one line of a guide's shell block with bash (as the `postgres` user with `asPostgres`, as the guide says). */
async function shell(line: string, env: Record<string, string>, asPostgres = false): Promise<string> {
  const user = asPostgres ? { uid: await idOf('postgres', '-u'), gid: await idOf('postgres', '-g') } : {};
  const { stdout } = await execFileAsync('bash', ['-euc', line], { ...user, env: { ...process.env, ...env } });
  return stdout;
}

/** The lines of a guide's shell block that run something (no comments, no blank lines). */
const commands = (block: string) => block.split('\n').filter((line) => line.trim() && !line.startsWith('#'));

describe('failover: the primary lost under a write load, the synchronous replica promoted and PgBouncer repointed as docs/deploy.md says', () => {
  test('the API processes carry on without a restart, every acknowledged create is on the new primary once, 503s only from the loss until shortly after the repoint; the old primary is rebuilt with pg_rewind as the new synchronous replica', async () => {
    const pair = await startPrimaryWithReplica({ synchronous: true });
    cleanups.push(() => pair.stop());
    const bouncer = await startPgBouncer(pair.primaryUrl, { adminPassword: PGBOUNCER_ADMIN_PASSWORD });
    cleanups.push(() => bouncer.stop());
    // The guide's commerce.env shape: requests through the transaction-mode entry, sessions through the session one.
    const pooledUrl = bouncer.url(pair.primaryUrl);
    const sessionUrl = pooledUrl.replace(/\/commerce$/, '/commerce_session');
    expect(sessionUrl).not.toBe(pooledUrl);
    const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'failover-api-')));
    cleanups.push(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    const env = { DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: sessionUrl, PLATFORM_TOKEN, RUN_JOBS: 'false' };
    // One after the other: two pg-boss starts on an empty database can race on its schema's creation.
    const apis = [];
    for (const dir of dirs) apis.push(await startMain({ ...env, DATA_DIR: dir }, cleanups));
    const haproxy = await startHaproxy(
      apis.map((api, n) => ({ name: `api${n + 1}`, port: Number(new URL(api.baseUrl).port) })),
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

    // Clients creating customers without pause, each create with its own Idempotency-Key, retried (same key) on a
    // 503 or a lost connection until it is answered.
    const attempts: Attempt[] = [];
    const acknowledged: Array<{ email: string; id: string; at: number }> = [];
    const unexpected: string[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        const key = randomUUID();
        const body = buildCustomer();
        for (let attempt = 1; ; attempt++) {
          if (attempt > 300) throw new Error(`no answer for ${key} after 300 attempts`);
          const started = Date.now();
          let response: Response;
          try {
            response = await fetch(`${haproxy.baseUrl}/v1/customers`, {
              method: 'POST',
              headers: {
                Authorization: `Bearer ${secret}`,
                'Content-Type': 'application/json',
                'Idempotency-Key': key,
              },
              body: JSON.stringify(body),
              signal: AbortSignal.timeout(30_000),
            });
          } catch {
            attempts.push({ started, ended: Date.now(), status: -1 });
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          const text = await response.text();
          attempts.push({ started, ended: Date.now(), status: response.status });
          if (response.status === 503) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          if (response.status === 201)
            acknowledged.push({
              email: body.email,
              id: (JSON.parse(text) as { data: { id: string } }).data.id,
              at: Date.now(),
            });
          else unexpected.push(`${response.status} ${text}`);
          break;
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    expect(await eventually(() => acknowledged.length >= 30, { timeoutMs: 20_000, intervalMs: 20 })).toBe(true);

    // The primary's host is lost: the postmaster and every backend SIGKILLed at once.
    const lostAt = Date.now();
    pair.killPrimary();
    // Then the guide's steps, as they are but for the addresses, ports and file: promote, repoint, reload.
    const steps = commands(
      localised(guideBlock('failover.sh'), [
        ['psql -c ', `psql -h 127.0.0.1 -p ${pair.replicaPort} -U postgres -d postgres -c `],
        ['host=10.0.0.5 port=5432 ', `host=127.0.0.1 port=${pair.primaryPort} `],
        ['host=10.0.0.6 port=5432 ', `host=127.0.0.1 port=${pair.replicaPort} `],
        ['/etc/pgbouncer/pgbouncer.ini', bouncer.configFile],
        ['-h 10.0.0.4 -p 6432 ', `-h 127.0.0.1 -p ${bouncer.port} `],
      ]),
    );
    expect(steps).toHaveLength(3);
    const stepEnv = { PATH: `${pair.bin}:${process.env.PATH}`, PGPASSWORD: PGBOUNCER_ADMIN_PASSWORD };
    expect(await shell(steps[0], stepEnv)).toMatch(/pg_promote\s*-+\s*t/);
    const promotedAt = Date.now();
    await shell(steps[1], stepEnv);
    await shell(steps[2], stepEnv);
    const repointedAt = Date.now();

    // Creates go on, answered by the same processes.
    expect(
      await eventually(() => acknowledged.filter((create) => create.at > repointedAt).length >= 30, {
        timeoutMs: 20_000,
        intervalMs: 20,
      }),
    ).toBe(true);
    running = false;
    await Promise.all(clients);
    for (const api of apis) {
      expect([api.child.exitCode, api.child.signalCode]).toEqual([null, null]);
      expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
    }
    expect(unexpected).toEqual([]);
    expect(attempts.filter((attempt) => ![201, 503].includes(attempt.status))).toEqual([]);

    // Every acknowledged create is on the new primary, once, under the id its client was given.
    expect((await pair.onReplica('SELECT pg_is_in_recovery() AS standby')).rows[0].standby).toBe(false);
    const { rows } = await pair.onReplica(
      `SELECT id, email FROM customers WHERE project_id = '${store.project.id.replace(/'/g, '')}'`,
    );
    const stored = new Map((rows as Array<{ id: string; email: string }>).map((row) => [row.email, row.id]));
    const lost = acknowledged.filter((create) => stored.get(create.email) !== create.id);
    expect(lost).toEqual([]);
    expect(rows.length).toBe(acknowledged.length);
    // At or before: the acknowledgement that ended the wait above may share lostAt's millisecond.
    const beforeLoss = acknowledged.filter((create) => create.at <= lostAt).length;
    expect(beforeLoss).toBeGreaterThanOrEqual(30);

    // 503s only from the loss until shortly after the repoint.
    const failed = attempts.filter((attempt) => attempt.status === 503);
    const outside = failed.filter(
      (attempt) => attempt.ended < lostAt || attempt.ended > repointedAt + AFTER_REPOINT_BOUND_MS,
    );
    expect(outside).toEqual([]);
    // (the first create sent after the loss that was answered 201)
    const servedAgainAt = Math.min(
      ...attempts
        .filter((attempt) => attempt.started > lostAt && attempt.status === 201)
        .map((attempt) => attempt.ended),
    );
    const lastFailure = Math.max(lostAt, ...failed.map((attempt) => attempt.ended));
    const slowest = Math.max(...attempts.filter((a) => a.started >= lostAt - 1_000).map((a) => a.ended - a.started));

    // The change feed listens again, on the new primary, from each process (its caches are on again).
    expect(
      await eventually(
        async () =>
          (
            await pair.onReplica(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = '${CHANGE_FEED_APPLICATION_NAME}'`,
            )
          ).rowCount! >= apis.length,
        { timeoutMs: 10_000, intervalMs: 100 },
      ),
    ).toBe(true);

    // Step 3: the old primary rebuilt with pg_rewind as a replica of the new one, then synchronous again (its host
    // down until then: none of its killed processes left).
    await pair.primaryGone();
    const rebuildStarted = Date.now();
    const rebuild = commands(
      localised(guideBlock('rebuild.sh'), [
        ['-h 10.0.0.6 ', `-h 127.0.0.1 -p ${pair.replicaPort} `],
        ['host=10.0.0.6 ', `host=127.0.0.1 port=${pair.replicaPort} `],
        ['/var/lib/postgresql/15/main', pair.primaryDir],
        [
          'pg_ctlcluster 15 main start',
          `pg_ctl -D ${pair.primaryDir} -o '-p ${pair.primaryPort} -k ${path.dirname(pair.primaryDir)}' ` +
            `-l ${path.join(path.dirname(pair.primaryDir), 'rebuilt.log')} -w start`,
        ],
      ]),
    );
    for (const line of rebuild)
      await shell(line, { PATH: `${pair.bin}:${process.env.PATH}`, PGPASSWORD: REPLICATOR_PASSWORD }, true);
    await pair.onReplica('ALTER SYSTEM RESET synchronous_standby_names');
    await pair.onReplica('SELECT pg_reload_conf()');
    expect(
      await eventually(
        async () =>
          (await pair.onReplica("SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'")).rowCount === 1,
        { timeoutMs: 15_000, intervalMs: 100 },
      ),
    ).toBe(true);
    const rebuiltIn = Date.now() - rebuildStarted;
    // A create now waits for the rebuilt replica, and is there.
    const after = buildCustomer();
    const created = await fetch(`${haproxy.baseUrl}/v1/customers`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(after),
    });
    expect(created.status).toBe(201);
    // (flushed there before the answer; replayed a moment later)
    const onRebuilt = () =>
      pair.onPrimary(
        `SELECT pg_is_in_recovery() AS standby, (SELECT count(*)::int FROM customers WHERE email = '${after.email.replace(/'/g, '')}') AS n`,
      );
    expect(
      await eventually(async () => (await onRebuilt()).rows[0].n === 1, { timeoutMs: 5_000, intervalMs: 50 }),
    ).toBe(true);
    expect((await onRebuilt()).rows[0]).toEqual({ standby: true, n: 1 });

    console.log(
      `failover: ${acknowledged.length} creates acknowledged (${beforeLoss} before the loss), ${attempts.length} attempts, ` +
        `${failed.length} answered 503; promoted ${promotedAt - lostAt} ms and repointed ${repointedAt - lostAt} ms after the loss; ` +
        `first create sent after the loss acknowledged ${servedAgainAt - lostAt} ms after it (${servedAgainAt - repointedAt} ms after the repoint); ` +
        `last 503 ${lastFailure - lostAt} ms after the loss (${lastFailure - repointedAt} ms after the repoint); ` +
        `slowest answer around it ${slowest} ms; rebuilt and synchronous again in ${rebuiltIn} ms`,
    );
  }, 120_000);
});
