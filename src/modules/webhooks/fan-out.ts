import type { Tx } from '../../db/client.js';
import type { StoreEvent } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { newWakeJobId, sendWakeUps } from './delivery-queue.js';

/** The body every delivery of an event sends: `{id, type, created_at, data}`, serialized once. */
export function eventBody(eventId: string, event: Pick<StoreEvent, 'type' | 'createdAt' | 'resourceId'>, payload: unknown): string {
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
  // FOR KEY SHARE: a subscription deleted concurrently either waits for this write or is not seen, so
  // the delivery rows never point at a deleted subscription.
  const subscriptions = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM webhook_subscriptions
    WHERE project_id = ${ctx.project.id} AND status = 'active' AND ${event.type} = ANY(events)
    ORDER BY id FOR KEY SHARE`;
  if (subscriptions.length === 0) return;
  const projectId = ctx.project.id;
  const eventId = newId('evt_');
  await tx.webhookEvent.create({
    data: { id: eventId, projectId, type: event.type, body: eventBody(eventId, event, payload), createdAt: event.createdAt },
  });
  const deliveries = subscriptions.map((subscription) => ({
    id: newId('whd_'),
    projectId,
    subscriptionId: subscription.id,
    eventId,
    eventType: event.type,
    status: 'pending',
    nextAttemptAt: event.createdAt,
    wakeJobId: newWakeJobId(),
  }));
  await tx.webhookDelivery.createMany({ data: deliveries });
  await sendWakeUps(tx, ctx.jobs, deliveries.map((d) => ({ deliveryId: d.id, subscriptionId: d.subscriptionId, jobId: d.wakeJobId })));
}
