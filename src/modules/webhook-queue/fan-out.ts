import type { Database, Tx } from '../../db/client.js';
import type { StoreEvent } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { newWakeJobId, sendWakeUps } from './delivery-queue.js';
import { insertEventDeliveries, listenedEventTypes, lockListeningSubscriptions } from './webhook-queue.sql.js';

/** The body every delivery of an event sends: `{id, type, created_at, data}`, serialized once. */
export function eventBody(
  eventId: string,
  event: Pick<StoreEvent, 'type' | 'createdAt' | 'resourceId'>,
  payload: unknown,
): string {
  // Every emitter passes the resource as the API shows it; an id is the least a receiver can act on.
  const data = payload ?? { id: event.resourceId };
  return JSON.stringify({ id: eventId, type: event.type, created_at: event.createdAt.toISOString(), data });
}

/**
 * The store-event subscriber of webhooks, run in the transaction that records the event: for every
 * active subscription of the project listening to the event's type, a pending delivery row and its
 * wake-up job, committed (or rolled back) with the write itself. The body is frozen now under one event
 * id shared by all those deliveries. Paused subscriptions get nothing (skipped, not queued).
 */
export async function webhookFanOut(tx: Tx, ctx: Ctx, event: StoreEvent, payload: unknown): Promise<void> {
  if (!(await mayHaveSubscribers(tx, ctx, event.type))) return;
  // FOR KEY SHARE: a subscription deleted concurrently either waits for this write or is not seen, so
  // the delivery rows never point at a deleted subscription.
  const subscriptions = await lockListeningSubscriptions(tx, ctx.project.id, event.type);
  if (subscriptions.length === 0) return;
  const projectId = ctx.project.id;
  const eventId = newId('evt_');
  const deliveries = subscriptions.map((subscription) => ({
    id: newId('whd_'),
    subscription_id: subscription.id,
    wake_job_id: newWakeJobId(),
  }));
  // The event body, its deliveries and the NOTIFY that wakes the senders on commit, in one statement
  // (every API write with subscribers pays for it).
  const body = eventBody(eventId, event, payload);
  await insertEventDeliveries(
    tx,
    { id: eventId, projectId, type: event.type, body, createdAt: event.createdAt },
    deliveries,
  );
  const wakeUps = deliveries.map((d) => ({
    deliveryId: d.id,
    subscriptionId: d.subscription_id,
    jobId: d.wake_job_id,
  }));
  await sendWakeUps(tx, ctx.jobs, wakeUps, true);
}

/** The table whose rows decide which events fan out; its writers call `subscriptionsWritten`. */
const SUBSCRIPTIONS = 'webhook_subscriptions';

/**
 * False only when no active subscription of the project listens to `type`, as the per-process cache
 * knows it: kept exact by the webhook_subscriptions trigger (any process, any SQL) and, at once, by this
 * process's subscription writes (`subscriptionsWritten`); other writes of the project leave it alone, or
 * every create would read it again. A subscription committed by another process is seen once its
 * notification arrives, within milliseconds. Spares most writes the subscription query: projects without
 * webhooks are the common case. Inside a transaction, read through it (`tx`).
 */
export async function mayHaveSubscribers(tx: Database | Tx, ctx: Ctx, type: string): Promise<boolean> {
  if (!ctx.caches) return true;
  const read = async () => {
    // Through the write's transaction: another pool connection could wait forever while every connection
    // holds a transaction waiting for one.
    const rows = await listenedEventTypes(tx, ctx.project.id);
    return new Set(rows.map((row) => row.type));
  };
  const types = await ctx.caches.webhookEventTypes.get(ctx.project.id, 'active', [SUBSCRIPTIONS], read);
  return types.has(type);
}

/** Call after this process writes subscriptions (create, update, delete): fan-out reads them again at once. */
export function subscriptionsWritten(ctx: Pick<Ctx, 'caches' | 'project'>): void {
  ctx.caches?.versions.tableWritten(SUBSCRIPTIONS, ctx.project.id);
}
