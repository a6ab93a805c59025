import type { Database } from '../../db/client.js';

/** Successful deliveries are kept 30 days, failed ones 7 (openapi.yaml, `listWebhookDeliveries`). */
export const DELIVERY_RETENTION_DAYS = { succeeded: 30, failed: 7 } as const;

/**
 * Deletes succeeded deliveries 30 days and failed or abandoned ones 7 days after their last change (the
 * last attempt), then the event bodies no delivery refers to any more; returns how many deliveries.
 * Deliveries still waiting for an attempt are kept.
 */
export async function purgeWebhookDeliveries(db: Database): Promise<number> {
  const purged = await db.$executeRaw`
    DELETE FROM webhook_deliveries
    WHERE (status = 'succeeded' AND updated_at < now() - make_interval(days => ${DELIVERY_RETENTION_DAYS.succeeded}))
       OR (status IN ('failed', 'abandoned') AND updated_at < now() - make_interval(days => ${DELIVERY_RETENTION_DAYS.failed}))`;
  await db.$executeRaw`
    DELETE FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`;
  return purged;
}
