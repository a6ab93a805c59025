import type { Database } from '../../db/client.js';
import { deleteOldDeliveries } from './webhooks.sql.js';

/** Successful deliveries are kept 30 days, failed ones 7 (openapi.yaml, `listWebhookDeliveries`). */
export const DELIVERY_RETENTION_DAYS = { succeeded: 30, failed: 7 } as const;

/**
 * Deletes succeeded deliveries 30 days and failed or abandoned ones 7 days after their last change (the
 * last attempt), then the event bodies no delivery refers to any more; returns how many deliveries.
 * Deliveries still waiting for an attempt are kept.
 */
export function purgeWebhookDeliveries(db: Database): Promise<number> {
  return deleteOldDeliveries(db, DELIVERY_RETENTION_DAYS);
}
