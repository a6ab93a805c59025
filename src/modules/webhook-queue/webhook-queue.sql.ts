import type { Database, Tx } from '../../db/client.js';
import { WAKE_CHANNEL } from './wake-listener.js';

/**
 * The delivery queue's hand-written statements (tagged raw SQL, values bound): the fan-out's reads and its one
 * insert of an event with its deliveries, and the set-based wake-ups. Each runs on the transaction it is given.
 */

/** A delivery woken with a new wake-up job id. */
export interface WokenRow {
  id: string;
  subscription_id: string;
  wake_job_id: string;
}

/** The ids of the project's active subscriptions listening to `type`, in id order, each locked FOR KEY SHARE (a concurrent delete waits for the caller's commit). */
export function lockListeningSubscriptions(tx: Tx, projectId: string, type: string): Promise<Array<{ id: string }>> {
  return tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM webhook_subscriptions
    WHERE project_id = ${projectId} AND status = 'active' AND ${type} = ANY(events)
    ORDER BY id FOR KEY SHARE`;
}

/** The event types the project's active subscriptions listen to. */
export function listenedEventTypes(db: Database | Tx, projectId: string): Promise<Array<{ type: string }>> {
  return db.$queryRaw<Array<{ type: string }>>`
    SELECT DISTINCT unnest(events) AS type FROM webhook_subscriptions WHERE project_id = ${projectId} AND status = 'active'`;
}

/** The event's body, one pending delivery per entry of `deliveries` and the NOTIFY that wakes the senders on commit, in one statement. */
export async function insertEventDeliveries(
  tx: Tx,
  event: { id: string; projectId: string; type: string; body: string; createdAt: Date },
  deliveries: Array<{ id: string; subscription_id: string; wake_job_id: string }>,
): Promise<void> {
  const { id: eventId, projectId, type, body, createdAt } = event;
  await tx.$executeRaw`
    WITH event AS (
      INSERT INTO webhook_events (id, project_id, type, body, created_at)
      VALUES (${eventId}, ${projectId}, ${type}, ${body}, ${createdAt}))
    INSERT INTO webhook_deliveries (id, project_id, subscription_id, event_id, event_type, status, next_attempt_at, wake_job_id, created_at, updated_at)
    SELECT v.id, ${projectId}, v.subscription_id, ${eventId}, ${type}, 'pending', ${createdAt}, v.wake_job_id, now(), now()
    FROM jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb) AS v(id text, subscription_id text, wake_job_id uuid),
      (SELECT pg_notify(${WAKE_CHANNEL}, '')) AS wake`;
}

/** Wakes the delivery senders of every process when the caller's transaction commits. */
export async function notifySenders(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${WAKE_CHANNEL}, '')`;
}

/** Gives every due delivery of the subscription (pending or failed, next attempt come, no live lease) a new wake-up job id. */
export function rewakeDueDeliveries(tx: Tx, subscriptionId: string): Promise<WokenRow[]> {
  return tx.$queryRaw<WokenRow[]>`
    UPDATE webhook_deliveries SET wake_job_id = gen_random_uuid(), lease_until = NULL, updated_at = now()
    WHERE subscription_id = ${subscriptionId} AND status IN ('pending', 'failed') AND next_attempt_at <= now()
      AND (lease_until IS NULL OR lease_until < now())
    RETURNING id, subscription_id, wake_job_id::text`;
}

/** Gives at most `limit` deliveries of active subscriptions whose lease lapsed a new wake-up job id, their lease dropped. */
export function rewakeLapsedDeliveries(tx: Tx, limit: number): Promise<WokenRow[]> {
  return tx.$queryRaw<WokenRow[]>`
    UPDATE webhook_deliveries SET wake_job_id = gen_random_uuid(), lease_until = NULL, updated_at = now()
    WHERE id IN (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.lease_until < now() AND d.status IN ('pending', 'failed') AND s.status = 'active'
      LIMIT ${limit})
    RETURNING id, subscription_id, wake_job_id::text`;
}

/**
 * Gives at most `limit` deliveries of active subscriptions, due for over a minute and without a lease, whose wake-up
 * job is no longer queued or running in `queue` a new wake-up job id.
 */
export function rewakeOrphanedDeliveries(tx: Tx, queue: string, limit: number): Promise<WokenRow[]> {
  // pgboss.job is pg-boss 12's job table (schema of src/jobs/queue.ts); its states below `completed`
  // are the ones that will still run. A minute of grace leaves wake-ups that are merely busy alone.
  return tx.$queryRaw<WokenRow[]>`
    UPDATE webhook_deliveries SET wake_job_id = gen_random_uuid(), updated_at = now()
    WHERE id IN (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at < now() - interval '1 minute'
        AND d.lease_until IS NULL AND s.status = 'active'
        AND NOT EXISTS (
          SELECT 1 FROM pgboss.job j
          WHERE j.name = ${queue} AND j.id = d.wake_job_id AND j.state IN ('created', 'retry', 'active'))
      LIMIT ${limit})
    RETURNING id, subscription_id, wake_job_id::text`;
}
