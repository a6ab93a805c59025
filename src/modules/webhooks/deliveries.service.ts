import type { operations } from '../../generated/openapi.js';
import type { Prisma, WebhookDelivery } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, conflict, notFound } from '../../shared/errors.js';
import { filterInstantOf } from '../../shared/instants.js';
import { listPage } from '../../shared/list-page.js';
import { writeTx } from '../../shared/write.js';
import { newWakeJobId, sendWakeUps } from '../webhook-queue/index.js';
import { findWebhook } from './subscriptions.service.js';
import { toDeliveryResource } from './webhooks.mappers.js';
import { lockDelivery, requeueDelivery, requeueFailedDeliveries } from './webhooks.sql.js';

type DeliveryListQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

const pausedError = () =>
  new AppError('invalid_request', 'This subscription is paused. Set its status to active before redelivering.');

/** A page of the subscription's deliveries, newest first unless `order` is asc; 404 for another project's subscription. */
export async function listDeliveries(ctx: Ctx, webhookId: string, query: DeliveryListQuery) {
  await findWebhook(ctx, ctx.db, webhookId);
  const where: Prisma.WebhookDeliveryWhereInput = {
    subscriptionId: webhookId,
    status: query.status,
    eventType: query.event_type,
  };
  return listPage(ctx, {
    model: ctx.db.webhookDelivery,
    where,
    query: { ...query, sort: 'created_at' as const },
    sorts: { created_at: [{ field: 'createdAt', kind: 'date' }] },
    map: toDeliveryResource,
  });
}

/**
 * Queues the delivery to be sent now, whatever its state: pending, due at the database's now, with a
 * wake-up job sent in the same transaction. 400 while the subscription is paused; 409 while an attempt
 * of it is in flight (its outcome would overwrite this request).
 */
export async function retryDelivery(ctx: Ctx, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  return writeTx(ctx, {}, async (tx) => {
    const subscription = await findWebhook(ctx, tx, webhookId);
    if (subscription.status !== 'active') throw pausedError();
    const jobId = newWakeJobId();
    const delivery = await lockDelivery(tx, webhookId, deliveryId);
    if (!delivery) throw notFound('Delivery not found.');
    if (delivery.leased) throw conflict('An attempt of this delivery is in progress. Try again in a few seconds.');
    await requeueDelivery(tx, deliveryId, jobId);
    await sendWakeUps(tx, ctx.jobs, [{ deliveryId, subscriptionId: webhookId, jobId }]);
    return tx.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
  });
}

/**
 * Queues every failed or abandoned delivery of the subscription created at or after `since` to be sent
 * now (pending, each with a new wake-up job), in one transaction; returns how many. Deliveries in flight
 * are left to their attempt. 400 while the subscription is paused.
 */
export async function recoverDeliveries(ctx: Ctx, webhookId: string, since: string): Promise<number> {
  return writeTx(ctx, {}, async (tx) => {
    const subscription = await findWebhook(ctx, tx, webhookId);
    if (subscription.status !== 'active') throw pausedError();
    const rows = await requeueFailedDeliveries(tx, webhookId, filterInstantOf(since));
    await sendWakeUps(
      tx,
      ctx.jobs,
      rows.map((row) => ({ deliveryId: row.id, subscriptionId: webhookId, jobId: row.wake_job_id })),
    );
    return rows.length;
  });
}
