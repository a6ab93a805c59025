import type { JobDeps } from '../../shared/job-definition.js';
import type { AttemptOutcome } from './attempt.js';
import { settleSubscriptions } from './circuit-breaker.js';
import { newWakeJobId, sendWakeUps } from '../webhook-queue/index.js';
import { nextAttemptAt } from './retry-schedule.js';

// Writing a batch's outcomes waits behind the API's own writes under load; give it time.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

interface OutcomeRow {
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

/** The row change of one outcome: succeeded, or failed with the next attempt scheduled, or abandoned after the last. */
export function outcomeRow(outcome: AttemptOutcome, random: number = Math.random()): OutcomeRow {
  const attempt = outcome.delivery.attempt_count + 1;
  const next = outcome.ok ? null : nextAttemptAt(attempt, outcome.attemptedAt, random);
  return {
    id: outcome.delivery.id,
    subscription_id: outcome.delivery.subscription_id,
    lease_until: outcome.delivery.lease_until.toISOString(),
    status: outcome.ok ? 'succeeded' : next ? 'failed' : 'abandoned',
    attempt_count: attempt,
    next_attempt_at: next?.toISOString() ?? null,
    attempted_at: outcome.attemptedAt.toISOString(),
    response_status: outcome.responseStatus,
    response_body: outcome.responseBody,
    duration_ms: outcome.durationMs,
    error: outcome.error,
    wake_job_id: next ? newWakeJobId() : null,
  };
}

/**
 * Writes the outcomes of a batch of attempts in one transaction: each delivery's new state (only while
 * it still holds the lease its attempt claimed, so a late writer never overwrites a newer attempt), the
 * wake-up job of every retry that follows, and what the outcomes mean for their subscriptions (circuit
 * breaker).
 */
export async function recordOutcomes(deps: JobDeps, outcomes: AttemptOutcome[]): Promise<void> {
  const rows = outcomes.map((outcome) => outcomeRow(outcome));
  await deps.db.$transaction(async (tx) => {
    const written = await tx.$queryRaw<Array<{ id: string }>>`
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
    const kept = new Set(written.map((row) => row.id));
    const retries = rows.filter((row) => row.wake_job_id !== null && kept.has(row.id));
    await sendWakeUps(
      tx,
      deps.jobs,
      retries.map((row) => ({
        deliveryId: row.id,
        subscriptionId: row.subscription_id,
        jobId: row.wake_job_id!,
        at: new Date(row.next_attempt_at!),
      })),
    );
    await settleSubscriptions(
      tx,
      deps,
      outcomes.filter((outcome) => kept.has(outcome.delivery.id)),
    );
  }, TRANSACTION_OPTIONS);
}
