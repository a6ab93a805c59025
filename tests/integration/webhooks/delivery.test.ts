import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { JobQueue } from '../../../src/jobs/queue.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import type { CommerceClient } from '../../../src/sdk/index.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createWebhook, listDeliveries, queuedWakeUps, waitForDeliveries } from '../../factories/webhook.factory.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';
import { WebhookReceiver, type Received } from '../../setup/webhook-receiver.js';

// The app with a worker working every queue, as `npm start` runs it, delivering to a local HTTPS receiver
// whose self-signed certificate the worker's outbound pool trusts.
let app: TestApp;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let worker: JobQueue;
let store: CreatedProject;
let api: CommerceClient;
const MINUTE = 60_000;

beforeAll(async () => {
  app = await startTestApp({ config: { allowPrivateNetworkTargets: true } });
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  worker = await JobQueue.start(app.deps.config.databaseUrl!, app.deps.log, { work: true, deps: { ...app.deps, outbound: agent } });
  store = await createProject(app, { contact_email: 'owner@store.example.com' });
  api = app.client(store.keys.secret_test.token);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.close();
  await agent.close();
});

/** Checks both signatures of a received request (Standard Webhooks through its own library) and returns the parsed body. */
function verified(request: Received, secret: string): { id: string; type: string; created_at: string; data: Record<string, unknown> } {
  expect(request.headers['x-service-signature']).toBe(createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest('hex'));
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as ReturnType<typeof verified>;
}

const msBetween = (a: string | null, b: string | null) => new Date(b!).getTime() - new Date(a!).getTime();

describe('delivery', () => {
  test('a subscription to customer.created gets a POST signed both ways within a second of creating a customer', async () => {
    const webhook = await createWebhook(api, receiver.url('/first'));
    const started = Date.now();
    const customer = await createCustomer(api);
    const [request] = await receiver.waitFor('/first', 1, 5_000);
    expect(request.at - started).toBeLessThan(1_000);

    const payload = verified(request, webhook.secret);
    expect(payload).toEqual({ id: expect.stringMatching(/^evt_[0-9a-z]{26}$/), type: 'customer.created', created_at: expect.any(String), data: customer });
    expect(request.headers['webhook-id']).toBe(payload.id);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^CommerceAPI-Webhooks\//);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    // A tampered body fails the Standard Webhooks check.
    expect(() => verified({ ...request, body: request.body.replace('customer', 'kustomer') }, webhook.secret)).toThrow();

    const [delivery] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'succeeded');
    expect(delivery).toMatchObject({
      subscription_id: webhook.id, event_id: payload.id, event_type: 'customer.created', status: 'succeeded', attempt_count: 1,
      next_attempt_at: null, response_status: 200, response_body: '{"ok":true}', error: null,
    });
    expect(delivery.duration_ms).toBeGreaterThanOrEqual(0);
    expect(delivery.last_attempt_at).not.toBeNull();
  });

  test('a receiver answering 500 fails the attempt: next_attempt_at 5 minutes later, a retry redelivers now, recover re-queues', async () => {
    receiver.answer('/failing', { status: 500, body: 'x'.repeat(3000) });
    const webhook = await createWebhook(api, receiver.url('/failing'));
    await createCustomer(api);
    const [first] = await receiver.waitFor('/failing', 1);
    const [failed] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'failed');
    expect(failed).toMatchObject({ attempt_count: 1, response_status: 500, error: null });
    expect(failed.response_body).toBe('x'.repeat(1024)); // the first 1 KiB
    const wait = msBetween(failed.last_attempt_at, failed.next_attempt_at);
    expect(wait).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(wait).toBeLessThanOrEqual(5.5 * MINUTE);
    // The retry is a pg-boss job that starts exactly then.
    const wakeUps = await queuedWakeUps(app, failed.id);
    expect(wakeUps.map((w) => w.start_after.toISOString())).toEqual([failed.next_attempt_at]);

    // Redeliver now: the same event, a new attempt in the same record.
    const retried = await api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { path: { id: webhook.id, delivery_id: failed.id } } });
    expect(retried.response.status).toBe(202);
    expect(retried.data!.data).toMatchObject({ id: failed.id, status: 'pending', attempt_count: 1 });
    const [, second] = await receiver.waitFor('/failing', 2);
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const [again] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.attempt_count === 2);
    expect(again.status).toBe('failed');
    const secondWait = msBetween(again.last_attempt_at, again.next_attempt_at);
    expect(secondWait).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(secondWait).toBeLessThanOrEqual(33 * MINUTE);

    // The receiver is fixed; recover sends the failed deliveries since a moment before now.
    receiver.answer('/failing', { status: 204 });
    const recovered = await api.POST('/v1/webhooks/{id}/recover', {
      params: { path: { id: webhook.id } }, body: { since: new Date(Date.now() - MINUTE).toISOString() },
    });
    expect(recovered.response.status).toBe(202);
    expect(recovered.data!.data).toEqual({ requeued: 1 });
    const [done] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'succeeded');
    expect(done).toMatchObject({ attempt_count: 3, response_status: 204, response_body: '', next_attempt_at: null });
    expect(receiver.on('/failing')).toHaveLength(3);
  });
});
