import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AppDeps } from '../../../src/app-deps.js';
import { attemptDelivery } from '../../../src/modules/webhooks/attempt.js';
import { claimDeliveries, deliverWakeUps } from '../../../src/modules/webhooks/deliver.js';
import { sweepDeliveries } from '../../../src/modules/webhook-queue/delivery-queue.js';
import { recordOutcomes } from '../../../src/modules/webhooks/outcomes.js';
import { purgeWebhookDeliveries } from '../../../src/modules/webhooks/retention.js';
import { RETRY_DELAYS_MS } from '../../../src/modules/webhooks/retry-schedule.js';
import { recordEvent } from '../../../src/modules/store-events/index.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import type { CommerceClient } from '@commerce-api/sdk';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { buildStoreEvent } from '../../factories/store-event.factory.js';
import { createWebhook, listDeliveries, queuedWakeUps } from '../../factories/webhook.factory.js';
import { keyCtx } from '../../setup/ctx.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';
import { useStore } from '../../setup/store.js';

// No worker runs here: each test wakes deliveries itself (the `webhook-deliver` handler, run directly)
// and lets time pass by moving a delivery's next attempt to now.
const store = useStore({
  project: { contact_email: 'ops@rules.example.com' },
  app: { config: { allowPrivateNetworkTargets: true } },
});
const { app, api } = store;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let deps: AppDeps;
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  deps = { ...app.deps, outbound: agent };
});
afterAll(async () => {
  await receiver.close();
  await agent.close();
});

const wake = (deliveryId: string, using: AppDeps = deps) => deliverWakeUps(using, [{ v: 1, deliveryId }]);
const row = (id: string) => app.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
const makeDue = (id: string) =>
  app.deps.db.$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = ${id}`;
const subscriptionRow = (id: string) => app.deps.db.webhookSubscription.findUniqueOrThrow({ where: { id } });

/** A subscription to customer.created at `path` and one customer created: its one delivery, not yet attempted. */
async function queuedDelivery(path: string, client: CommerceClient = api) {
  const webhook = await createWebhook(client, receiver.url(path));
  await createCustomer(client);
  const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
  return { webhook, delivery };
}

describe('the retry schedule', () => {
  test('attempts 1-5 go out at now, +5 min, +30 min, +2 h, +8 h (each after the last failure, jitter up to 10 %); then abandoned', async () => {
    receiver.answer('/always-failing', { status: 500, body: 'down' });
    const { delivery } = await queuedDelivery('/always-failing');
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 0 });
    for (let attempt = 1; attempt <= 5; attempt++) {
      await wake(delivery.id);
      const after = await row(delivery.id);
      expect(after.attemptCount).toBe(attempt);
      expect(after.responseStatus).toBe(500);
      if (attempt < 5) {
        expect(after.status).toBe('failed');
        const wait = after.nextAttemptAt!.getTime() - after.lastAttemptAt!.getTime();
        expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[attempt - 1]);
        expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[attempt - 1] * 1.1);
        // Its wake-up job is queued for exactly that moment.
        const queued = await queuedWakeUps(app, delivery.id);
        expect(queued.at(-1)!.start_after.getTime()).toBe(after.nextAttemptAt!.getTime());
        // Before it is due, a wake-up sends nothing.
        await wake(delivery.id);
        expect((await row(delivery.id)).attemptCount).toBe(attempt);
        await makeDue(delivery.id);
      } else {
        expect(after).toMatchObject({ status: 'abandoned', nextAttemptAt: null });
      }
    }
    await wake(delivery.id);
    const requests = receiver.on('/always-failing');
    expect(requests).toHaveLength(5);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1); // the same frozen body every time
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  test('a 3xx answer is a failure and is not followed', async () => {
    receiver.answer('/moved', { status: 301, body: 'moved' });
    const { delivery } = await queuedDelivery('/moved');
    await wake(delivery.id);
    expect(await row(delivery.id)).toMatchObject({ status: 'failed', responseStatus: 301, responseBody: 'moved' });
  });

  test('an answer with NUL bytes is kept without them', async () => {
    receiver.answer('/binary', { status: 200, body: 'a\u0000b' });
    const { delivery } = await queuedDelivery('/binary');
    await wake(delivery.id);
    expect(await row(delivery.id)).toMatchObject({ status: 'succeeded', responseBody: 'ab' });
  });
});

describe('the private-address guard at delivery time', () => {
  test('a host name that resolves to a loopback address is refused without connecting; the attempt records a generic reason', async () => {
    const webhook = await createWebhook(api, `https://localhost:${receiver.port}/private`);
    await createCustomer(api);
    const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    const production = { ...deps, config: { ...deps.config, allowPrivateNetworkTargets: false } };
    await wake(delivery.id, production);
    const after = await row(delivery.id);
    expect(after).toMatchObject({ status: 'failed', attemptCount: 1, responseStatus: null });
    expect(after.error).toBe('refused: the host did not resolve to a public address');
    expect(receiver.on('/private')).toHaveLength(0);
  });

  test('a host that does not resolve records the very same reason, so deliveries do not tell which internal names exist', async () => {
    const webhook = await createWebhook(api, 'https://no-such-host.invalid/hook');
    await createCustomer(api);
    const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    const production = { ...deps, config: { ...deps.config, allowPrivateNetworkTargets: false } };
    await wake(delivery.id, production);
    expect((await row(delivery.id)).error).toBe('refused: the host did not resolve to a public address');
  });
});

describe('leases', () => {
  test('two wake-ups of one delivery at the same moment send it once', async () => {
    const { delivery } = await queuedDelivery('/twice');
    await Promise.all([
      wake(delivery.id),
      wake(delivery.id),
      deliverWakeUps(deps, [
        { v: 1, deliveryId: delivery.id },
        { v: 1, deliveryId: delivery.id },
      ]),
    ]);
    expect(receiver.on('/twice')).toHaveLength(1);
    expect(await row(delivery.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  });

  test('an outcome written after its lease was taken over is dropped, so it cannot overwrite the newer attempt', async () => {
    const { delivery } = await queuedDelivery('/late');
    const [claimed] = await claimDeliveries(app.deps.db, [delivery.id]);
    const outcome = await attemptDelivery(deps, claimed);
    // Meanwhile the lease lapsed and another attempt claimed the delivery.
    await app.deps.db
      .$executeRaw`UPDATE webhook_deliveries SET lease_until = now() + interval '20 seconds' WHERE id = ${delivery.id}`;
    await recordOutcomes(deps, [outcome]);
    expect(await row(delivery.id)).toMatchObject({ status: 'pending', attemptCount: 0 });
  });
});

describe('the retry job (sweep)', () => {
  test('wakes a delivery whose attempt died with its process (lease lapsed), once', async () => {
    const { delivery } = await queuedDelivery('/died');
    await claimDeliveries(app.deps.db, [delivery.id]); // ... and the process is killed before sending
    expect(await app.deps.db.$transaction((tx) => sweepDeliveries(tx, app.deps.jobs))).toBe(0); // the lease still holds
    await app.deps.db
      .$executeRaw`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE id = ${delivery.id}`;
    const woken = await app.deps.db.$transaction((tx) => sweepDeliveries(tx, app.deps.jobs));
    expect(woken).toBeGreaterThanOrEqual(1);
    const repaired = await row(delivery.id);
    expect(repaired.leaseUntil).toBeNull();
    expect((await queuedWakeUps(app, delivery.id)).map((job) => job.id)).toContain(repaired.wakeJobId);
    await wake(delivery.id);
    expect(receiver.on('/died')).toHaveLength(1);
  });

  test('wakes a due delivery whose wake-up job is gone from pg-boss, and leaves alone one whose job is still queued', async () => {
    const { delivery: lost } = await queuedDelivery('/lost');
    const { delivery: kept } = await queuedDelivery('/kept');
    await app.deps.db
      .$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '2 minutes' WHERE id IN (${lost.id}, ${kept.id})`;
    await app.deps.db.$executeRaw`DELETE FROM pgboss.job WHERE id = ${lost.wakeJobId}::uuid`;
    await app.deps.db.$transaction((tx) => sweepDeliveries(tx, app.deps.jobs));
    expect((await row(lost.id)).wakeJobId).not.toBe(lost.wakeJobId);
    expect(await queuedWakeUps(app, lost.id)).toHaveLength(1);
    expect((await row(kept.id)).wakeJobId).toBe(kept.wakeJobId);
  });

  test('does not wake deliveries of a paused subscription', async () => {
    const { webhook, delivery } = await queuedDelivery('/sweep-paused');
    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'paused' } });
    await app.deps.db
      .$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '2 minutes', lease_until = now() - interval '1 second' WHERE id = ${delivery.id}`;
    await app.deps.db.$executeRaw`DELETE FROM pgboss.job WHERE id = ${delivery.wakeJobId}::uuid`;
    await app.deps.db.$transaction((tx) => sweepDeliveries(tx, app.deps.jobs));
    expect((await row(delivery.id)).wakeJobId).toBe(delivery.wakeJobId);
  });
});

describe('the circuit breaker over 5 days', () => {
  test('the first failure starts the run; any success ends it', async () => {
    receiver.answer('/flaky', { status: 502 });
    const { webhook, delivery } = await queuedDelivery('/flaky');
    await wake(delivery.id);
    const failing = await subscriptionRow(webhook.id);
    expect(failing.failingSince).toEqual((await row(delivery.id)).lastAttemptAt);
    receiver.answer('/flaky', { status: 200 });
    await makeDue(delivery.id);
    await wake(delivery.id);
    expect((await subscriptionRow(webhook.id)).failingSince).toBeNull();
  });

  test('a subscription whose deliveries all failed for 5 days is paused at its next failure; a store event and an e-mail say why', async () => {
    receiver.answer('/dead', { status: 503 });
    const { webhook, delivery } = await queuedDelivery('/dead');
    await app.deps.db.webhookSubscription.update({
      where: { id: webhook.id },
      data: { failingSince: new Date(Date.now() - 5 * DAY + 60_000) },
    });
    await wake(delivery.id);
    expect((await subscriptionRow(webhook.id)).status).toBe('active'); // 4 days 23:59 is not 5 days
    await app.deps.db.webhookSubscription.update({
      where: { id: webhook.id },
      data: { failingSince: new Date(Date.now() - 5 * DAY - 60_000) },
    });
    await makeDue(delivery.id);
    await wake(delivery.id);
    expect((await subscriptionRow(webhook.id)).status).toBe('paused');
    const events = await api.GET('/v1/events', { params: { query: { resource_id: webhook.id } } });
    expect(events.data!.data[0]).toMatchObject({
      type: 'webhook_subscription.paused',
      summary: `Webhook subscription ${webhook.id} paused: every delivery attempt to it failed for 5 days`,
    });
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: store.project.id } },
    });
    expect(outbox.data!.data.find((e) => e.data.subscription_id === webhook.id)).toMatchObject({
      to: ['ops@rules.example.com'],
      template: 'webhook_paused',
      data: { reason: 'failing' },
    });
    // Making it active again starts a new count.
    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'active' } });
    expect((await subscriptionRow(webhook.id)).failingSince).toBeNull();
  });

  test('a project without a contact e-mail still gets the notice recorded in its outbox', async () => {
    const other = await createProject(app);
    const otherApi = app.client(other.keys.secret_test.token);
    receiver.answer('/gone-quietly', { status: 410 });
    const { webhook, delivery } = await queuedDelivery('/gone-quietly', otherApi);
    await wake(delivery.id);
    expect((await subscriptionRow(webhook.id)).status).toBe('paused');
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: other.project.id } },
    });
    expect(outbox.data!.data).toEqual([
      expect.objectContaining({
        to: [],
        template: 'webhook_paused',
        data: expect.objectContaining({ reason: 'gone' }),
      }),
    ]);
  });
});

describe('listWebhookDeliveries', () => {
  test("filters by status and event_type, pages with a cursor, picks fields; 404 for an unknown or another project's subscription", async () => {
    receiver.answer('/history', { status: 200 });
    const webhook = await createWebhook(api, receiver.url('/history'), {
      events: ['customer.created', 'customer.updated'],
    });
    const customer = await createCustomer(api);
    await api.PATCH('/v1/customers/{id}', { params: { path: { id: customer.id } }, body: { first_name: 'Renamed' } });
    await createCustomer(api);
    const deliveries = await app.deps.db.webhookDelivery.findMany({
      where: { subscriptionId: webhook.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(deliveries.map((d) => d.eventType)).toEqual(['customer.created', 'customer.updated', 'customer.created']);
    await wake(deliveries[0].id);

    const all = await listDeliveries(api, webhook.id);
    expect(all.map((d) => d.id)).toEqual(deliveries.map((d) => d.id).reverse());
    const path = { id: webhook.id };
    const succeeded = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { status: 'succeeded' } },
    });
    expect(succeeded.data!.data.map((d) => d.id)).toEqual([deliveries[0].id]);
    const updated = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { event_type: 'customer.updated' } },
    });
    expect(updated.data!.data.map((d) => d.id)).toEqual([deliveries[1].id]);
    const page1 = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { limit: 2, order: 'asc' } },
    });
    expect(page1.data!.pagination).toMatchObject({ has_more: true, total: 3 });
    const page2 = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { limit: 2, order: 'asc', cursor: page1.data!.pagination.cursor! } },
    });
    expect([...page1.data!.data, ...page2.data!.data].map((d) => d.id)).toEqual(deliveries.map((d) => d.id));
    const sparse = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { fields: ['status'], limit: 1 } },
    });
    expect(sparse.data!.data).toEqual([{ id: deliveries[2].id, status: 'pending' }]);
    const badStatus = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path, query: { status: 'lost' as never } },
    });
    expect(badStatus.response.status).toBe(400);

    const other = await createProject(app);
    const otherApi = app.client(other.keys.secret_test.token);
    expect((await otherApi.GET('/v1/webhooks/{id}/deliveries', { params: { path } })).response.status).toBe(404);
    const unknown = await api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path: { id: 'wh_01jd5s0a2c4e6g8j0l2n4q6s8u' } },
    });
    expect(unknown.error).toEqual({ error: { code: 'not_found', message: 'Webhook subscription not found.' } });
  });
});

describe('retryWebhookDelivery and recoverWebhookDeliveries', () => {
  test("retry: 404 for a delivery that is not the subscription's; 409 while an attempt is in flight; works on a succeeded one", async () => {
    const { webhook, delivery } = await queuedDelivery('/retry-rules');
    const { webhook: another } = await queuedDelivery('/retry-other');
    const retry = (id: string, deliveryId: string) =>
      api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
        params: { path: { id, delivery_id: deliveryId } },
      });
    const wrong = await retry(another.id, delivery.id);
    expect(wrong.response.status).toBe(404);
    expect(wrong.error).toEqual({ error: { code: 'not_found', message: 'Delivery not found.' } });
    expect((await retry(webhook.id, 'whd_01jd5s1b3d5f7h9k1m3p5r7t9v')).response.status).toBe(404);

    await claimDeliveries(app.deps.db, [delivery.id]);
    const busy = await retry(webhook.id, delivery.id);
    expect(busy.response.status).toBe(409);
    expect(busy.error!.error.code).toBe('conflict');
    await app.deps.db.$executeRaw`UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ${delivery.id}`;
    await wake(delivery.id);
    expect((await row(delivery.id)).status).toBe('succeeded');

    const again = await retry(webhook.id, delivery.id);
    expect(again.response.status).toBe(202);
    expect(again.data!.data).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(new Date(again.data!.data.next_attempt_at!).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    await wake(delivery.id);
    expect(await row(delivery.id)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(receiver.on('/retry-rules')).toHaveLength(2);
  });

  test('recover re-queues only failed and abandoned deliveries created since the given time; 400 on a bad since or a paused subscription', async () => {
    receiver.answer('/recover', { status: 500 });
    const webhook = await createWebhook(api, receiver.url('/recover'));
    for (let i = 0; i < 3; i++) await createCustomer(api);
    const [old, failed, ok] = await app.deps.db.webhookDelivery.findMany({
      where: { subscriptionId: webhook.id },
      orderBy: { createdAt: 'asc' },
    });
    await wake(old.id);
    await wake(failed.id);
    await app.deps.db
      .$executeRaw`UPDATE webhook_deliveries SET status = 'abandoned', next_attempt_at = NULL, created_at = now() - interval '2 days' WHERE id = ${old.id}`;
    receiver.answer('/recover', { status: 200 });
    await wake(ok.id);
    const recover = (since: string) =>
      api.POST('/v1/webhooks/{id}/recover', { params: { path: { id: webhook.id } }, body: { since } });
    expect((await recover(new Date(Date.now() + 60_000).toISOString())).data!.data).toEqual({ requeued: 0 });
    expect((await recover(new Date(Date.now() - DAY).toISOString())).data!.data).toEqual({ requeued: 1 });
    expect(await row(failed.id)).toMatchObject({ status: 'pending' });
    expect((await row(old.id)).status).toBe('abandoned');
    expect((await recover(new Date(Date.now() - 3 * DAY).toISOString())).data!.data).toEqual({ requeued: 1 });
    await wake(old.id);
    await wake(failed.id);
    expect((await row(old.id)).status).toBe('succeeded');
    expect((await row(failed.id)).status).toBe('succeeded');

    const bad = await api.POST('/v1/webhooks/{id}/recover', {
      params: { path: { id: webhook.id } },
      body: { since: 'yesterday' },
    });
    expect(bad.error!.error).toMatchObject({ code: 'invalid_request', field: 'since' });
    await api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'paused' } });
    expect((await recover(new Date(Date.now() - DAY).toISOString())).response.status).toBe(400);
  });

  test('recover takes every date-time the contract accepts: a leap second or an instant before year 1 answers 202, not 500', async () => {
    receiver.answer('/recover-edges', { status: 500 });
    const webhook = await createWebhook(api, receiver.url('/recover-edges'));
    await createCustomer(api);
    const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
    await wake(delivery.id);
    expect((await row(delivery.id)).status).toBe('failed');
    const recover = (since: string) =>
      api.POST('/v1/webhooks/{id}/recover', { params: { path: { id: webhook.id } }, body: { since } });
    // 23:59:60 is the leap second after 23:59:59, so before every delivery made since.
    const leap = await recover('2016-12-31T23:59:60Z');
    expect([leap.response.status, leap.data?.data]).toEqual([202, { requeued: 1 }]);
    expect((await row(delivery.id)).status).toBe('pending');
    await wake(delivery.id);
    for (const since of ['2016-12-31 23:59:60Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00']) {
      const early = await recover(since);
      expect([early.response.status, early.data?.data]).toEqual([202, { requeued: 1 }]);
      await wake(delivery.id);
    }
    // A leap second after the delivery was made: nothing since.
    const later = await recover(`${new Date(Date.now() + DAY).toISOString().slice(0, 10)}T23:59:60Z`);
    expect([later.response.status, later.data?.data]).toEqual([202, { requeued: 0 }]);
  });
});

describe('fan-out and the write', () => {
  test('a write that rolls back leaves no event body, delivery or wake-up job behind', async () => {
    const webhook = await createWebhook(api, receiver.url('/rollback'), { events: ['product.updated'] });
    const ctx = await keyCtx(app, store.project.id, store.keys.secret_test.id);
    const before = await app.deps.db.$queryRaw<
      Array<{ n: bigint }>
    >`SELECT count(*) AS n FROM pgboss.job WHERE name = 'webhook-deliver'`;
    await expect(
      app.deps.db.$transaction(async (tx) => {
        await recordEvent(tx, ctx, buildStoreEvent({ payload: { id: 'prod_x' } }));
        expect(await tx.webhookDelivery.count({ where: { subscriptionId: webhook.id } })).toBe(1);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await app.deps.db.webhookDelivery.count({ where: { subscriptionId: webhook.id } })).toBe(0);
    expect(
      await app.deps.db.webhookEvent.count({ where: { projectId: store.project.id, type: 'product.updated' } }),
    ).toBe(0);
    const after = await app.deps.db.$queryRaw<
      Array<{ n: bigint }>
    >`SELECT count(*) AS n FROM pgboss.job WHERE name = 'webhook-deliver'`;
    expect(after[0].n).toBe(before[0].n);
  });

  test('one event id and one frozen body shared by the deliveries of every matching subscription; others get nothing', async () => {
    const a = await createWebhook(api, receiver.url('/share-a'), { events: ['customer.updated', 'customer.created'] });
    const b = await createWebhook(api, receiver.url('/share-b'));
    const c = await createWebhook(api, receiver.url('/share-c'), { events: ['product.created'] });
    const customer = await createCustomer(api);
    const [da] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: a.id } });
    const [db] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: b.id } });
    expect(await app.deps.db.webhookDelivery.count({ where: { subscriptionId: c.id } })).toBe(0);
    expect(da.eventId).toBe(db.eventId);
    // A change after the event does not change what is delivered.
    await api.PATCH('/v1/customers/{id}', { params: { path: { id: customer.id } }, body: { last_name: 'Changed' } });
    await wake(da.id);
    await wake(db.id);
    const [ra] = receiver.on('/share-a');
    const [rb] = receiver.on('/share-b');
    expect(ra.body).toBe(rb.body);
    expect(JSON.parse(ra.body).data).toEqual(customer);
  });
});

describe('retention', () => {
  test('succeeded deliveries are purged after 30 days, failed and abandoned after 7, pending never; bodies no delivery needs go too', async () => {
    const own = app.client((await createProject(app)).keys.secret_test.token); // no other subscription shares its events
    const { webhook } = await queuedDelivery('/retention', own);
    for (let i = 0; i < 5; i++) await createCustomer(own);
    const ids = (
      await app.deps.db.webhookDelivery.findMany({
        where: { subscriptionId: webhook.id },
        orderBy: { createdAt: 'asc' },
      })
    ).map((d) => d.id);
    const set = (id: string, status: string, daysAgo: number) =>
      app.deps.db
        .$executeRaw`UPDATE webhook_deliveries SET status = ${status}, updated_at = now() - make_interval(days => ${daysAgo}) WHERE id = ${id}`;
    await set(ids[0], 'succeeded', 31);
    await set(ids[1], 'succeeded', 29);
    await set(ids[2], 'failed', 8);
    await set(ids[3], 'abandoned', 8);
    await set(ids[4], 'abandoned', 6);
    await set(ids[5], 'pending', 40);
    const events = await app.deps.db.webhookDelivery.findMany({
      where: { id: { in: [ids[0], ids[2]] } },
      select: { eventId: true },
    });
    await purgeWebhookDeliveries(app.deps.db);
    const left = (
      await app.deps.db.webhookDelivery.findMany({
        where: { subscriptionId: webhook.id },
        orderBy: { createdAt: 'asc' },
      })
    ).map((d) => d.id);
    expect(left).toEqual([ids[1], ids[4], ids[5]]);
    expect(await app.deps.db.webhookEvent.count({ where: { id: { in: events.map((e) => e.eventId) } } })).toBe(0);
  });
});
