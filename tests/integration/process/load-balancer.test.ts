import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import pg from 'pg';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { fetchRetrying503, startHaproxy } from '../../setup/haproxy.js';
import { startMain, startWorker, type Cleanups } from '../../setup/process.js';
import type { TestApp } from '../../setup/test-app.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'load-balancer-platform-token-0123456789';

/** One create as the client saw it in the end, after its retries. */
interface Acknowledged {
  key: string;
  body: ReturnType<typeof buildCustomer>;
  id: string;
  servedBy: string;
  attempts: number;
}

describe('two API processes and a job worker behind HAProxy (Debian), one API process SIGKILLed under a create load', () => {
  test('every acknowledged create exists exactly once, retries with the same key replay it, no 5xx but 503 reaches a client, and the webhooks of the killed process’s creates are delivered by the worker', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const receiver = await new WebhookReceiver().start();
    cleanups.push(() => receiver.close());
    const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'lb-api-')));
    cleanups.push(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    const shared = {
      DATABASE_URL: database.url,
      PLATFORM_TOKEN,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
    };
    const [api1, api2] = await Promise.all(
      dirs.map((dir) => startMain({ ...shared, DATA_DIR: dir, RUN_JOBS: 'false' }, cleanups)),
    );
    await startWorker(shared, cleanups);
    const haproxy = await startHaproxy(
      [api1, api2].map((api, n) => ({ name: `api${n + 1}`, port: Number(new URL(api.baseUrl).port) })),
    );
    cleanups.push(() => haproxy.stop());

    const platform = createCommerceClient({
      baseUrl: haproxy.baseUrl,
      apiKey: PLATFORM_TOKEN,
      fetch: fetchRetrying503,
    });
    const store = await createProject({ platform } as TestApp);
    const secret = store.keys.secret_test.token;
    const post = (pathname: string, body: unknown, key: string) =>
      fetch(`${haproxy.baseUrl}${pathname}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      });
    const hook = await post('/v1/webhooks', { url: receiver.url('/hooks'), events: ['customer.created'] }, 'hook');
    expect(hook.status).toBe(201);

    // Clients that create customers, each with its own Idempotency-Key, retrying on a connection error or a 503.
    const acknowledged: Acknowledged[] = [];
    const unexpected: string[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        const key = randomUUID();
        const body = buildCustomer();
        for (let attempt = 1; ; attempt++) {
          if (attempt > 100) throw new Error(`no answer for ${key} after 100 attempts`);
          let response: Response;
          try {
            response = await post('/v1/customers', body, key);
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 100));
            continue;
          }
          if (response.status === 503) {
            await response.arrayBuffer();
            await new Promise((resolve) => setTimeout(resolve, 100));
            continue;
          }
          const answer = (await response.json()) as { data: { id: string } };
          if (response.status !== 201) unexpected.push(`${response.status} ${JSON.stringify(answer)}`);
          else {
            const servedBy = response.headers.get('x-served-by') ?? '';
            acknowledged.push({ key, body, id: answer.data.id, servedBy, attempts: attempt });
          }
          break;
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    // Under load: both processes have acknowledged creates (however slow the machine), and the load goes on 1 s more.
    const loaded = Date.now() + 30_000;
    const hasServed = (name: string) => acknowledged.some((create) => create.servedBy === name);
    while (!(hasServed('api1') && hasServed('api2')) && Date.now() < loaded)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const beforeKill = acknowledged.length;
    api1.child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    running = false;
    await Promise.all(clients);

    expect(unexpected).toEqual([]);
    expect(beforeKill).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(beforeKill);
    const byKilled = acknowledged.filter((create) => create.servedBy === 'api1');
    const bySurvivor = acknowledged.filter((create) => create.servedBy === 'api2');
    expect(byKilled.length).toBeGreaterThan(0);
    expect(byKilled.length + bySurvivor.length).toBe(acknowledged.length);

    // Exactly once: one row per acknowledged create, under the id the client was given, and nothing else.
    const db = new pg.Client({ connectionString: database.directUrl });
    await db.connect();
    cleanups.push(() => db.end());
    const { rows } = await db.query<{ id: string; email: string }>(
      'SELECT id, email FROM customers WHERE project_id = $1',
      [store.project.id],
    );
    expect(rows.length).toBe(acknowledged.length);
    const idOf = new Map(rows.map((row) => [row.email, row.id]));
    for (const create of acknowledged)
      expect([create.body.email, idOf.get(create.body.email)]).toEqual([create.body.email, create.id]);

    // A retry with the same key replays the stored answer (same id), whichever process created it.
    for (const create of [...byKilled.slice(0, 5), ...bySurvivor.slice(-5)]) {
      const replay = await post('/v1/customers', create.body, create.key);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as { data: { id: string } }).data.id).toBe(create.id);
    }

    // The webhooks of every create, the killed process's included, are delivered by the worker (pg-boss).
    const delivered = await receiver.waitFor('/hooks', acknowledged.length, 60_000);
    const deliveredIds = new Set(
      delivered.map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id),
    );
    for (const create of byKilled) expect(deliveredIds.has(create.id)).toBe(true);
    expect(deliveredIds.size).toBe(acknowledged.length);
  }, 180_000);
});
