import type { JobDeps } from '../../shared/job-definition.js';
import type { AttemptOutcome } from './attempt.js';
import { settleSubscriptions } from './circuit-breaker.js';
import { newWakeJobId, sendWakeUps } from '../webhook-queue/index.js';
import { nextAttemptAt } from './retry-schedule.js';
import { writeOutcomes, type OutcomeRow } from './webhooks.sql.js';

// Writing a batch's outcomes waits behind the API's own writes under load; give it time.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

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
    const written = await writeOutcomes(tx, rows);
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
