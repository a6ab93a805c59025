/**
 * How a webhook delivery is never lost.
 *
 * The delivery row is the truth; pg-boss jobs (`webhook-deliver`, payload `{deliveryId}`) are only
 * wake-ups. A delivery is *due* when its status is pending or failed, its `next_attempt_at` has come and
 * no live lease is on it.
 *
 * 1. Every transaction that makes a delivery due at some moment also sends a wake-up job for that
 *    moment, and records that job's id on the row (`wake_job_id`): the fan-out (now, in the write's own
 *    transaction), a failed attempt (startAfter = the next attempt), a redelivery or recover (now), a
 *    resumed subscription (now). The job exists if and only if the row change committed.
 * 2. A wake-up attempts only after claiming the delivery: one committed UPDATE sets `lease_until` (now
 *    + LEASE_SECONDS) where the delivery is due and its subscription active. Two wake-ups of one
 *    delivery therefore never send at the same time; a wake-up that finds nothing due does nothing.
 * 3. The attempt's outcome (and the next wake-up when one follows) is written in one transaction that
 *    also clears the lease.
 * 4. The retry job (`webhook-retry`, every 5 minutes, and once in each process LEASE_SECONDS after it
 *    starts) repairs the rest: a lease that lapsed means the attempt died with its process (SIGKILL,
 *    crash) before its outcome was written, and the delivery is woken again; a due delivery whose
 *    wake-up job is no longer queued or running in pg-boss (it failed for good, or was deleted) is woken
 *    again.
 *
 * So a delivery can be sent twice (the process died after the receiver got it but before the outcome
 * was written, or writing the outcome took longer than the lease), never zero times: receivers must be
 * idempotent (webhook-id is the event id). Order is not kept.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.js';
import type { JobSender } from '../../shared/job-types.js';
import {
  notifySenders,
  rewakeDueDeliveries,
  rewakeLapsedDeliveries,
  rewakeOrphanedDeliveries,
  type WokenRow,
} from './webhook-queue.sql.js';

/**
 * How long a claimed delivery may go without an outcome before others count its attempt dead: claimed
 * ahead, it may wait one attempt (10 s) for its subscription's turn, then take its own 10 s, then its
 * outcome is written; with room to spare under load.
 */
export const LEASE_SECONDS = 30;

/** The queue of wake-up jobs. */
export const WAKE_QUEUE = 'webhook-deliver';

export interface WakeUp {
  deliveryId: string;
  /** The job's pg-boss group: the dispatcher skips a subscription's wake-ups while it has enough running. */
  subscriptionId: string;
  /** The job id, also written to the delivery's wake_job_id. */
  jobId: string;
  /** When to wake; now when absent. */
  at?: Date;
}

/** A fresh wake-up job id. */
export const newWakeJobId = (): string => randomUUID();

/**
 * Sends the wake-up jobs inside the caller's transaction (the one that wrote their wake_job_ids) and,
 * when some are for now, notifies the senders (on commit) unless `notified` says the caller did.
 */
export async function sendWakeUps(tx: Tx, jobs: JobSender, wakeUps: WakeUp[], notified = false): Promise<void> {
  if (wakeUps.length === 0) return;
  if (!notified && wakeUps.some((wake) => !wake.at)) await notifySenders(tx);
  await jobs.enqueueMany(
    tx,
    WAKE_QUEUE,
    wakeUps.map((wake) => ({
      payload: { v: 1 as const, deliveryId: wake.deliveryId },
      options: { id: wake.jobId, group: { id: wake.subscriptionId }, ...(wake.at && { startAfter: wake.at }) },
    })),
  );
}

const toWakeUps = (rows: WokenRow[]): WakeUp[] =>
  rows.map((row) => ({ deliveryId: row.id, subscriptionId: row.subscription_id, jobId: row.wake_job_id }));

/**
 * Wakes, now, every delivery of the subscription that is due (pending or failed, next attempt come, no
 * live lease): what a paused subscription held back once it is active again.
 */
export async function wakeDueDeliveries(tx: Tx, jobs: JobSender, subscriptionId: string): Promise<number> {
  const rows = await rewakeDueDeliveries(tx, subscriptionId);
  await sendWakeUps(tx, jobs, toWakeUps(rows));
  return rows.length;
}

// Per pass, so one sweep stays a bounded transaction; the next pass takes the rest.
const SWEEP_LIMIT = 5_000;

/**
 * The retry job's pass (rule 4 above): wakes deliveries whose attempt died (lease lapsed) and due
 * deliveries whose wake-up job is gone from pg-boss. Returns how many it woke.
 */
export async function sweepDeliveries(tx: Tx, jobs: JobSender): Promise<number> {
  const lapsed = await rewakeLapsedDeliveries(tx, SWEEP_LIMIT);
  const orphaned = await rewakeOrphanedDeliveries(tx, WAKE_QUEUE, SWEEP_LIMIT);
  const wakeUps = toWakeUps([...lapsed, ...orphaned]);
  await sendWakeUps(tx, jobs, wakeUps);
  return wakeUps.length;
}
