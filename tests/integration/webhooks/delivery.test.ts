import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { JobQueue } from '../../../src/jobs/queue.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createWebhook, listDeliveries, queuedWakeUps, waitForDeliveries } from '../../factories/webhook.factory.js';
import { WebhookReceiver, type Received } from '../../setup/webhook-receiver.js';
import { stopBeforeClosing, useStore } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';

// The app with a worker working every queue, as `npm start` runs it, delivering to a local HTTPS receiver
// whose self-signed certificate the worker's outbound pool trusts.
const store = useStore({
  project: { contact_email: 'owner@store.example.com' },
  app: { config: { allowPrivateNetworkTargets: true } },
});
const { app, api } = store;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let worker: JobQueue;
const MINUTE = 60_000;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  worker = await JobQueue.start(sessionUrlOf(app), app.deps.log, {
    work: true,
    deps: { ...app.deps, outbound: agent },
  });
  stopBeforeClosing(app, () => worker.stop());
});
afterAll(async () => {
  await receiver.close();
  await agent.close();
});

/** Checks both signatures of a received request (Standard Webhooks through its own library) and returns the parsed body. */
function verified(
  request: Received,
  secret: string,
): { id: string; type: string; created_at: string; data: Record<string, unknown> } {
  expect(request.headers['x-service-signature']).toBe(
    createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest('hex'),
  );
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
    const customer = await createCustomer(api);
    const created = Date.now(); // the write has committed once the API answered
    const [request] = await receiver.waitFor('/first', 1, 5_000);
    expect(request.at - created).toBeLessThan(1_000);

    const payload = verified(request, webhook.secret);
    expect(payload).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: 'customer.created',
      created_at: expect.any(String),
      data: customer,
    });
    expect(request.headers['webhook-id']).toBe(payload.id);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^CommerceAPI-Webhooks\//);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    // A tampered body fails the Standard Webhooks check.
    expect(() =>
      verified({ ...request, body: request.body.replace('customer', 'kustomer') }, webhook.secret),
    ).toThrow();

    const [delivery] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'succeeded');
    expect(delivery).toMatchObject({
      subscription_id: webhook.id,
      event_id: payload.id,
      event_type: 'customer.created',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      response_status: 200,
      response_body: '{"ok":true}',
      error: null,
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
    const retried = await api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id: webhook.id, delivery_id: failed.id } },
    });
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
      params: { path: { id: webhook.id } },
      body: { since: new Date(Date.now() - MINUTE).toISOString() },
    });
    expect(recovered.response.status).toBe(202);
    expect(recovered.data!.data).toEqual({ requeued: 1 });
    const [done] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'succeeded');
    expect(done).toMatchObject({ attempt_count: 3, response_status: 204, response_body: '', next_attempt_at: null });
    expect(receiver.on('/failing')).toHaveLength(3);
  });
});

/** The subscription's deliveries straight from the database (also those the API no longer shows). */
const deliveryRows = (webhookId: string) =>
  app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhookId }, orderBy: { createdAt: 'asc' } });
/** Lets "time pass" for a delivery: its next attempt becomes due now. */
const makeDue = (deliveryId: string) =>
  app.deps.db.$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = ${deliveryId}`;

describe('paused subscriptions', () => {
  test('a paused subscription receives nothing for events during the pause; an active one beside it does', async () => {
    const paused = await createWebhook(api, receiver.url('/paused'), { status: 'paused' });
    const active = await createWebhook(api, receiver.url('/beside'));
    await createCustomer(api);
    await receiver.waitFor('/beside', 1);
    await waitForDeliveries(api, active.id, (d) => d[0]?.status === 'succeeded');
    expect(await deliveryRows(paused.id)).toEqual([]); // skipped, not queued
    // Resuming does not bring back what happened during the pause.
    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: paused.id } }, body: { status: 'active' } });
    await createCustomer(api);
    await receiver.waitFor('/paused', 1);
    expect(receiver.on('/paused')).toHaveLength(1);
  });

  test('a delivery queued before the pause waits while paused and is sent once the subscription is active again', async () => {
    receiver.answer('/held', { status: 503 });
    const webhook = await createWebhook(api, receiver.url('/held'));
    await createCustomer(api);
    const [failed] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'failed');
    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'paused' } });
    receiver.answer('/held', { status: 200 });
    await makeDue(failed.id);
    // The retry job runs, and redelivery is refused, while paused: nothing is sent.
    await worker.send('webhook-retry', { v: 1 });
    const retry = await api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id: webhook.id, delivery_id: failed.id } },
    });
    expect(retry.response.status).toBe(400);
    expect(retry.error!.error.message).toMatch(/paused/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.on('/held')).toHaveLength(1);

    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'active' } });
    await receiver.waitFor('/held', 2);
    const [done] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'succeeded');
    expect(done).toMatchObject({ id: failed.id, attempt_count: 2 });
  });
});

describe('circuit breaker', () => {
  test('a receiver answering 410 Gone pauses its subscription at once; a store event says why and the merchant gets an e-mail', async () => {
    receiver.answer('/gone', { status: 410, body: 'gone' });
    const webhook = await createWebhook(api, receiver.url('/gone'));
    await createCustomer(api);
    const [delivery] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.response_status === 410);
    expect(delivery.status).toBe('failed');
    const read = await api.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } });
    expect(read.data!.data.status).toBe('paused');

    const events = await api.GET('/v1/events', { params: { query: { resource_id: webhook.id } } });
    expect(events.data!.data).toEqual([
      expect.objectContaining({
        type: 'webhook_subscription.paused',
        resource_type: 'webhook_subscription',
        actor_type: 'system',
        actor_id: 'system:webhook-deliver',
        summary: `Webhook subscription ${webhook.id} paused: its receiver answered 410 Gone`,
        metadata: { changes: { status: { from: 'active', to: 'paused' } } },
      }),
    ]);
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: store.project.id }, query: { to: 'owner@store.example.com' } },
    });
    const email = outbox.data!.data.find(
      (e) => e.template === 'webhook_paused' && e.data.subscription_id === webhook.id,
    );
    expect(email).toMatchObject({
      to: ['owner@store.example.com'],
      data: { reason: 'gone', url: receiver.url('/gone') },
    });
    expect(email!.text).toContain('410 Gone');

    // Paused: the next events are skipped.
    await createCustomer(api);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.on('/gone')).toHaveLength(1);
    expect(await deliveryRows(webhook.id)).toHaveLength(1);
  });
});

describe('deleting a subscription', () => {
  test('stops retries of its pending deliveries', async () => {
    receiver.answer('/deleted', { status: 500 });
    const webhook = await createWebhook(api, receiver.url('/deleted'));
    await createCustomer(api);
    const [failed] = await waitForDeliveries(api, webhook.id, (d) => d[0]?.status === 'failed');
    const [retryJob] = await queuedWakeUps(app, failed.id);
    expect(retryJob).toEqual({ id: expect.any(String), start_after: new Date(failed.next_attempt_at!) });
    expect((await api.DELETE('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).response.status).toBe(204);
    // Its retry wakes up (made due now) and finds nothing to send.
    await app.deps.db.$executeRaw`UPDATE pgboss.job SET start_after = now() WHERE id = ${retryJob.id}::uuid`;
    const deadline = Date.now() + 10_000;
    let state: string | undefined;
    while (state !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await worker.pgBoss.findJobs('webhook-deliver', { id: retryJob.id }))[0]?.state;
    }
    expect(state).toBe('completed');
    expect(receiver.on('/deleted')).toHaveLength(1);
    expect(await deliveryRows(webhook.id)).toEqual([]);
  });
});

describe('concurrency per subscription', () => {
  test('at most 16 attempts to one subscription are in flight at once, however many deliveries are queued', async () => {
    receiver.answer('/slow', 'hang');
    // Another receiver (origin): the outbound pool's connections to this one are what the slow one holds.
    const elsewhere = await new WebhookReceiver().start();
    const otherAgent = agent; // trusts only the first receiver's certificate: use a pool trusting both
    agent = new OutboundAgent({ ca: [receiver.cert, elsewhere.cert] });
    await worker.stop();
    worker = await JobQueue.start(sessionUrlOf(app), app.deps.log, {
      work: true,
      deps: { ...app.deps, outbound: agent },
    });
    await otherAgent.close();
    try {
      const webhook = await createWebhook(api, receiver.url('/slow'));
      const other = await createWebhook(api, elsewhere.url('/unaffected'));
      for (let i = 0; i < 30; i++) await createCustomer(api);
      await receiver.waitFor('/slow', 16);
      await elsewhere.waitFor('/unaffected', 30, 5_000); // another subscription is not held up
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.on('/slow')).toHaveLength(16);
      // The receiver recovers; the hanging attempts time out (10 s) and the other 14 go through.
      receiver.answer('/slow', { status: 200 });
      const deliveries = await waitForDeliveries(
        api,
        webhook.id,
        (d) => d.length === 30 && d.every((x) => x.status !== 'pending'),
        25_000,
      );
      expect(deliveries.filter((d) => d.status === 'failed').map((d) => d.error)).toEqual(
        Array(16).fill(expect.stringMatching(/^timeout: /)),
      );
      expect(deliveries.filter((d) => d.status === 'succeeded')).toHaveLength(14);
      expect((await listDeliveries(api, other.id)).every((d) => d.status === 'succeeded')).toBe(true);
    } finally {
      await elsewhere.close();
    }
  }, 40_000);
});
