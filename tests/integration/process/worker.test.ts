import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { prepareDemo } from '../../setup/demo.js';
import { exited, startMain, startWorker, type Cleanups } from '../../setup/process.js';
import { startSmtpServer } from '../../setup/smtp.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('npm run worker beside an API process with RUN_JOBS=false', () => {
  test('the API process queues webhooks and e-mail without sending them; the worker delivers both, and later writes within seconds; its METRICS_PORT serves the probes and metrics; SIGTERM stops it cleanly', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'job-worker-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // The demo project as an earlier start made it (its catalog is not what this test is about): a copy of this
    // run's demo template, with its demo.json in dataDir; the server with DEMO_PROJECT=true finds both.
    const database = await createTestDatabase(await prepareDemo(dataDir));
    cleanups.push(database.drop);
    const receiver = await new WebhookReceiver().start();
    cleanups.push(() => receiver.close());
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.close());
    const shared = {
      DATABASE_URL: database.url,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      SMTP_URL: smtp.url,
    };
    const api = await startMain({ ...shared, DEMO_PROJECT: 'true', DATA_DIR: dataDir, RUN_JOBS: 'false' }, cleanups);
    const secret = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')).keys.secret_test.token;
    const call = async (method: string, pathname: string, body: unknown) => {
      const response = await fetch(`${api.baseUrl}${pathname}`, {
        method,
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { data: { id: string } } };
    };

    const hook = await call('POST', '/v1/webhooks', { url: receiver.url('/hooks'), events: ['customer.created'] });
    expect(hook.status).toBe(201);
    const first = await call('POST', '/v1/customers', buildCustomer());
    expect(first.status).toBe(201);
    const draft = await call('POST', '/v1/draft-orders', { currency: 'USD', customer_email: 'worker@example.com' });
    expect(draft.status).toBe(201);
    const items = await call('POST', `/v1/draft-orders/${draft.body.data.id}/items`, {
      items: [{ title: 'Consulting', unit_price: 5000, quantity: 1 }],
    });
    expect(items.status).toBe(201);
    expect((await call('POST', `/v1/draft-orders/${draft.body.data.id}/send`, {})).status).toBe(200);
    // Nothing works the queues yet: the API process only queued the delivery and the e-mail.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.on('/hooks')).toHaveLength(0);
    expect(smtp.received).toHaveLength(0);

    const worker = await startWorker({ ...shared, METRICS_PORT: '0' }, cleanups);
    const [delivered] = await receiver.waitFor('/hooks', 1, 30_000);
    expect(JSON.parse(delivered.body)).toMatchObject({ type: 'customer.created', data: { id: first.body.data.id } });
    const [mail] = await smtp.waitFor(1, 30_000);
    expect(mail.envelope.to).toContain('worker@example.com');

    // A write made now reaches the worker's queue at once (the API process's notification wakes it).
    const second = await call('POST', '/v1/customers', buildCustomer());
    const written = Date.now();
    const [, again] = await receiver.waitFor('/hooks', 2, 10_000);
    expect(JSON.parse(again.body)).toMatchObject({ data: { id: second.body.data.id } });
    expect(again.at - written).toBeLessThan(5_000);

    const probes = /on (http:\/\/\S+)/.exec(worker.output())![1];
    expect(await (await fetch(`${probes}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${probes}/readyz`)).json()).toEqual({ status: 'ready' });
    const metrics = await (await fetch(`${probes}/metrics`)).text();
    expect(metrics).toMatch(/commerce_webhook_attempts_total\{[^}]*outcome="success"[^}]*\} [1-9]/);
    expect((await fetch(`${probes}/v1/customers`)).status).toBe(404);

    worker.child.kill('SIGTERM');
    expect(await exited(worker.child)).toBe(0);
    api.child.kill('SIGTERM');
    expect(await exited(api.child)).toBe(0);
  }, 120_000);
});
