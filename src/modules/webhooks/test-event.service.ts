import type { components } from '../../generated/openapi.js';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { newWakeJobId, sendWakeUps, WAKE_CHANNEL } from '../webhook-queue/index.js';
import { findWebhook } from './subscriptions.service.js';
import { insertTestDelivery } from './webhooks.sql.js';

type EventType = components['schemas']['EventType'];

/** The body of a test event: the usual envelope, `test: true`, and `data` holding a sample id only. */
export function testEventBody(eventId: string, type: EventType, createdAt: Date): string {
  const data = { id: newId(`${type.split('.')[0]}_test_`) };
  return JSON.stringify({ id: eventId, type, created_at: createdAt.toISOString(), data, test: true });
}

/**
 * Queues a sample event of `type` to the subscription now, as one delivery marked `test` (its own event row,
 * signed and retried like any delivery), with its wake-up in the same transaction. 404 for another project's
 * subscription, 400 while it is paused.
 */
export async function sendTestEvent(ctx: Ctx, webhookId: string, type: EventType): Promise<WebhookDelivery> {
  return writeTx(ctx, {}, async (tx) => {
    const subscription = await findWebhook(ctx, tx, webhookId);
    if (subscription.status !== 'active')
      throw new AppError(
        'invalid_request',
        'This subscription is paused. Set its status to active before sending to it.',
      );
    const eventId = newId('evt_');
    const deliveryId = newId('whd_');
    const jobId = newWakeJobId();
    const now = new Date();
    const body = testEventBody(eventId, type, now);
    await insertTestDelivery(
      tx,
      { eventId, deliveryId, projectId: ctx.project.id, webhookId, type, body, jobId, now },
      WAKE_CHANNEL,
    );
    await sendWakeUps(tx, ctx.jobs, [{ deliveryId, subscriptionId: webhookId, jobId }], true);
    return tx.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
  });
}
