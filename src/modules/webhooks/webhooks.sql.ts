import type { Tx } from '../../db/client.js';
import { LEASE_SECONDS } from '../webhook-queue/index.js';
import type { ClaimedDelivery } from './attempt.js';

/**
 * The webhooks area's hand-written statements (tagged raw SQL, values bound): set-based writes of deliveries and
 * subscriptions that one Prisma call cannot express. Each runs on the `db` it is given (a transaction's `tx` when
 * the caller has one), so the caller's service owns the transaction.
 */

/** Leases the due deliveries among `ids` for LEASE_SECONDS and returns them with what sending needs. */
export function claimDueDeliveries(db: Tx, ids: string[]): Promise<ClaimedDelivery[]> {
  return db.$queryRaw<ClaimedDelivery[]>`
    UPDATE webhook_deliveries d
    SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS}), updated_at = now()
    FROM webhook_subscriptions s, webhook_events e
    WHERE d.id = ANY(${[...new Set(ids)]}) AND s.id = d.subscription_id AND e.id = d.event_id
      AND s.status = 'active' AND d.status IN ('pending', 'failed') AND d.next_attempt_at <= now()
      AND (d.lease_until IS NULL OR d.lease_until < now())
    RETURNING d.id, d.project_id, d.subscription_id, d.event_id, d.attempt_count, d.lease_until, s.url, s.secret,
      CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END AS previous_secret, e.body`;
}

/** The row change of one attempt's outcome, as outcomes.ts computes it. */
export interface OutcomeRow {
  id: string;
  subscription_id: string;
  lease_until: string;
  status: 'succeeded' | 'failed' | 'abandoned';
  attempt_count: number;
  next_attempt_at: string | null;
  attempted_at: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  wake_job_id: string | null;
}

/** Writes each outcome to its delivery only while the delivery holds the lease its attempt claimed; returns the ids written. */
export function writeOutcomes(tx: Tx, rows: OutcomeRow[]): Promise<Array<{ id: string }>> {
  return tx.$queryRaw<Array<{ id: string }>>`
    UPDATE webhook_deliveries d SET
      status = v.status, attempt_count = v.attempt_count, next_attempt_at = v.next_attempt_at,
      last_attempt_at = v.attempted_at, response_status = v.response_status, response_body = v.response_body,
      duration_ms = v.duration_ms, error = v.error, lease_until = NULL,
      wake_job_id = COALESCE(v.wake_job_id, d.wake_job_id), updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
      id text, lease_until timestamptz, status text, attempt_count int, next_attempt_at timestamptz,
      attempted_at timestamptz, response_status int, response_body text, duration_ms int, error text, wake_job_id uuid)
    WHERE d.id = v.id AND d.lease_until = v.lease_until
    RETURNING d.id`;
}

/** Ends the run of failures of each subscription among `ids` that has one. */
export async function clearFailingSince(tx: Tx, ids: string[]): Promise<void> {
  await tx.$executeRaw`UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = ANY(${ids}) AND failing_since IS NOT NULL`;
}

/** Starts a run of failures at `since` for each subscription without one, then returns those of `failing` still active whose run began at or before `cutoff`. */
export async function markFailingSince(
  tx: Tx,
  failing: Array<{ id: string; since: string }>,
  cutoff: Date,
): Promise<string[]> {
  await tx.$executeRaw`
    UPDATE webhook_subscriptions s SET failing_since = v.since
    FROM jsonb_to_recordset(${JSON.stringify(failing)}::jsonb) AS v(id text, since timestamptz)
    WHERE s.id = v.id AND s.failing_since IS NULL`;
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM webhook_subscriptions
    WHERE id = ANY(${failing.map((f) => f.id)}) AND status = 'active' AND failing_since <= ${cutoff}`;
  return rows.map((row) => row.id);
}

/** Locks the subscription's delivery and says whether an attempt holds its lease; undefined when it has no such delivery. */
export async function lockDelivery(
  tx: Tx,
  webhookId: string,
  deliveryId: string,
): Promise<{ id: string; leased: boolean } | undefined> {
  const rows = await tx.$queryRaw<Array<{ id: string; leased: boolean }>>`
    SELECT id, (lease_until IS NOT NULL AND lease_until > now()) AS leased
    FROM webhook_deliveries WHERE id = ${deliveryId} AND subscription_id = ${webhookId} FOR UPDATE`;
  return rows[0];
}

/** Makes the delivery pending and due now, woken by the job `jobId`, its lease dropped. */
export async function requeueDelivery(tx: Tx, deliveryId: string, jobId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), lease_until = NULL,
      wake_job_id = ${jobId}::uuid, updated_at = now()
    WHERE id = ${deliveryId}`;
}

/** Makes the subscription's failed and abandoned deliveries created since `since` (none in flight) pending and due now, each with a new wake-up job id. */
export function requeueFailedDeliveries(
  tx: Tx,
  webhookId: string,
  since: Date,
): Promise<Array<{ id: string; wake_job_id: string }>> {
  return tx.$queryRaw<Array<{ id: string; wake_job_id: string }>>`
    UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), wake_job_id = gen_random_uuid(), updated_at = now()
    WHERE subscription_id = ${webhookId} AND status IN ('failed', 'abandoned') AND created_at >= ${since}
      AND (lease_until IS NULL OR lease_until < now())
    RETURNING id, wake_job_id::text`;
}

/** Gives the project's subscription the new secret, keeping the one it replaces for `overlapSeconds` (none with 0); undefined when there is no such subscription. */
export async function rotateSecret(
  db: Tx,
  projectId: string,
  id: string,
  secret: string,
  overlapSeconds: number,
): Promise<{ previous_secret_expires_at: Date | null } | undefined> {
  const [rotated] = await db.$queryRaw<Array<{ previous_secret_expires_at: Date | null }>>`
    UPDATE webhook_subscriptions
    SET previous_secret = CASE WHEN ${overlapSeconds}::int > 0 THEN secret END,
        previous_secret_expires_at = CASE WHEN ${overlapSeconds}::int > 0
          THEN date_trunc('milliseconds', now()) + make_interval(secs => ${overlapSeconds}::int) END,
        secret = ${secret}, updated_at = now()
    WHERE id = ${id} AND project_id = ${projectId}
    RETURNING previous_secret_expires_at`;
  return rotated;
}

/** A test event's row, its one pending delivery and the NOTIFY on `channel` that wakes the senders on commit, in one statement. */
export async function insertTestDelivery(
  tx: Tx,
  delivery: {
    eventId: string;
    deliveryId: string;
    projectId: string;
    webhookId: string;
    type: string;
    body: string;
    jobId: string;
    now: Date;
  },
  channel: string,
): Promise<void> {
  const { eventId, deliveryId, projectId, webhookId, type, body, jobId, now } = delivery;
  await tx.$executeRaw`
    WITH event AS (
      INSERT INTO webhook_events (id, project_id, type, body, created_at)
      VALUES (${eventId}, ${projectId}, ${type}, ${body}, ${now}))
    INSERT INTO webhook_deliveries (id, project_id, subscription_id, event_id, event_type, status, next_attempt_at,
      wake_job_id, test, created_at, updated_at)
    SELECT ${deliveryId}, ${projectId}, ${webhookId}, ${eventId}, ${type}, 'pending', ${now},
      ${jobId}::uuid, true, now(), now()
    FROM (SELECT pg_notify(${channel}, '')) AS wake`;
}

/** Deletes deliveries past their retention (days after their last change), then the event bodies none refers to; returns how many deliveries. */
export async function deleteOldDeliveries(db: Tx, days: { succeeded: number; failed: number }): Promise<number> {
  const purged = await db.$executeRaw`
    DELETE FROM webhook_deliveries
    WHERE (status = 'succeeded' AND updated_at < now() - make_interval(days => ${days.succeeded}))
       OR (status IN ('failed', 'abandoned') AND updated_at < now() - make_interval(days => ${days.failed}))`;
  await db.$executeRaw`
    DELETE FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`;
  return purged;
}
