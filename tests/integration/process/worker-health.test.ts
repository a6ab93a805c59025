import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { exited, startMain, startWorker, type Cleanups } from '../../setup/process.js';
import type { TestApp } from '../../setup/test-app.js';
import { eventually } from '../../setup/wait.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'worker-health-platform-token-0123456789';
const METRICS_TOKEN = 'worker-health-metrics-token-0123';
// The documented bound for the test: red within JOBS_STALE_SECONDS plus one heartbeat period (5 s) and slack.
const STALE_SECONDS = 10;

/** A series' value in Prometheus text (the first line of `name` whose labels include `labels`), or undefined. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (Object.entries(labels).every(([key, wanted]) => (match[2] ?? '').includes(`${key}="${wanted}"`)))
      return Number(match[3]);
  }
  return undefined;
}

describe('the job workers’ health: /readyz?scope=jobs and the queue metrics', () => {
  test('with the worker stopped, /readyz?scope=jobs turns 503 within JOBS_STALE_SECONDS (plain /readyz stays 200), the backlog shows in the metrics, and both are green again after a restart', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'worker-health-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const receiver = await new WebhookReceiver().start();
    cleanups.push(() => receiver.close());
    const shared = {
      DATABASE_URL: database.url,
      PLATFORM_TOKEN,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      JOBS_STALE_SECONDS: String(STALE_SECONDS),
    };
    const api = await startMain(
      { ...shared, DATA_DIR: dataDir, RUN_JOBS: 'false', METRICS_TOKEN, RESPONSE_CHECK: 'true' },
      cleanups,
    );
    const probe = async (scope?: string) => {
      const response = await fetch(`${api.baseUrl}/readyz${scope ? `?scope=${scope}` : ''}`);
      return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
    };
    const metrics = async () =>
      (await fetch(`${api.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();

    // No worker yet: jobs are not run, the API itself is ready.
    expect(await probe('jobs')).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'No job worker has run jobs yet.' },
    });
    expect((await probe()).status).toBe(200);
    let worker = await startWorker({ ...shared, METRICS_PORT: '0' }, cleanups);
    expect(await eventually(async () => (await probe('jobs')).status === 200, { timeoutMs: 15_000 })).toBe(true);

    // Every series of a process carries its own `process` label (hostname:pid), the worker's too.
    const workerMetrics = await (await fetch(`${/on (http:\/\/\S+)/.exec(worker.output())![1]}/metrics`)).text();
    const processOf = (text: string) =>
      new Set(text.split('\n').flatMap((line) => /process="([^"]+)"/.exec(line)?.[1] ?? []));
    const series = (text: string) => text.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(series(workerMetrics).every((line) => line.includes(`process="${os.hostname()}:${worker.child.pid}"`))).toBe(
      true,
    );
    const apiMetrics = await metrics();
    expect(processOf(apiMetrics)).toEqual(new Set([`${os.hostname()}:${api.child.pid}`]));
    expect(value(apiMetrics, 'commerce_job_worker_heartbeat_age_seconds')).toBeLessThan(STALE_SECONDS);

    // The worker dies.
    worker.child.kill('SIGKILL');
    await exited(worker.child);
    const died = Date.now();
    const platform = createCommerceClient({ baseUrl: api.baseUrl, apiKey: PLATFORM_TOKEN });
    const store = await createProject({ platform } as TestApp);
    const secret = createCommerceClient({ baseUrl: api.baseUrl, apiKey: store.keys.secret_test.token });
    const hook = await secret.POST('/v1/webhooks', {
      body: { url: receiver.url('/hooks'), events: ['customer.created'] },
    });
    expect(hook.response.status).toBe(201);
    const customer = await secret.POST('/v1/customers', { body: buildCustomer() });
    expect(customer.response.status).toBe(201);

    expect(
      await eventually(async () => (await probe('jobs')).status === 503, { timeoutMs: 30_000, intervalMs: 250 }),
    ).toBe(true);
    const red = Date.now() - died;
    expect(red).toBeLessThan((STALE_SECONDS + 5 + 3) * 1000);
    const unready = await probe('jobs');
    expect(unready.body.reason).toMatch(
      new RegExp(`^No job worker has run jobs for \\d+ s \\(more than ${STALE_SECONDS} s\\)\\.$`),
    );
    expect((await probe()).status).toBe(200); // the API stays in the balancer's rotation
    const backlog = await metrics();
    expect(value(backlog, 'commerce_webhook_deliveries_pending')).toBe(1);
    expect(value(backlog, 'commerce_job_queue_oldest_pending_seconds', { queue: 'webhook-deliver' })).toBeGreaterThan(
      1,
    );
    expect(value(backlog, 'commerce_job_worker_heartbeat_age_seconds')).toBeGreaterThan(STALE_SECONDS);

    // A new worker: green within a heartbeat, and the backlog is worked off.
    worker = await startWorker({ ...shared, METRICS_PORT: '0' }, cleanups);
    const restarted = Date.now();
    expect(
      await eventually(async () => (await probe('jobs')).status === 200, { timeoutMs: 15_000, intervalMs: 250 }),
    ).toBe(true);
    expect(Date.now() - restarted).toBeLessThan(10_000);
    const [delivered] = await receiver.waitFor('/hooks', 1, 30_000);
    expect(JSON.parse(delivered.body)).toMatchObject({ data: { id: customer.data!.data.id } });
    expect(
      await eventually(async () => value(await metrics(), 'commerce_webhook_deliveries_pending') === 0, {
        timeoutMs: 10_000,
        intervalMs: 250,
      }),
    ).toBe(true);

    worker.child.kill('SIGTERM');
    expect(await exited(worker.child)).toBe(0);
    api.child.kill('SIGTERM');
    expect(await exited(api.child)).toBe(0);
  }, 180_000);
});
