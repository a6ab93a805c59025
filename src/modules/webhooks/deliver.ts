import type { Database } from '../../db/client.js';
import type { JobDeps } from '../../shared/job-definition.js';
import type { JobPayloads } from '../../shared/job-types.js';
import { attemptDelivery, type ClaimedDelivery } from './attempt.js';
import { recordOutcomes } from './outcomes.js';
import { claimDueDeliveries } from './webhooks.sql.js';

/**
 * Claims the deliveries among `ids` that are due (pending or failed, next attempt come, no live lease,
 * subscription active) by leasing them for LEASE_SECONDS, in one committed statement; returns them with
 * what sending needs. Deliveries not returned are not this caller's to send.
 */
export async function claimDeliveries(db: Database, ids: string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  return claimDueDeliveries(db, ids);
}

/**
 * Wakes deliveries at once, without the dispatcher (the job's plain handler; tests): claims what is due
 * among them, sends those concurrently and writes every outcome in one transaction. Wake-ups for
 * deliveries that are not due do nothing.
 */
export async function deliverWakeUps(deps: JobDeps, wakeUps: Array<JobPayloads['webhook-deliver']>): Promise<void> {
  const claimed = await claimDeliveries(
    deps.db,
    wakeUps.map((wake) => wake.deliveryId),
  );
  if (claimed.length === 0) return;
  const outcomes = await Promise.all(claimed.map((delivery) => attemptDelivery(deps, delivery)));
  await recordOutcomes(deps, outcomes);
}
