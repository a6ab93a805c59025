import type { Database } from '../db/client.js';
import type { QueueHealth } from '../shared/metrics.js';
import { OLDEST_PENDING_JOBS, PENDING_DELIVERIES, SECONDS_SINCE_HEARTBEAT } from './health.sql.js';

/** Seconds since any worker last ran a heartbeat job (src/jobs/heartbeat.job.ts), or undefined when none ever did. */
export async function secondsSinceHeartbeat(db: Database): Promise<number | undefined> {
  const [row] = await db.$queryRawUnsafe<Array<{ seconds: number | null }>>(SECONDS_SINCE_HEARTBEAT);
  return row?.seconds ?? undefined;
}

/**
 * Why the job queues are not being worked, or undefined when they are: no worker has run a heartbeat job for
 * more than `staleSeconds` (JOBS_STALE_SECONDS), or none ever has.
 */
export async function jobsUnreadyReason(db: Database, staleSeconds: number): Promise<string | undefined> {
  const seconds = await secondsSinceHeartbeat(db);
  if (seconds === undefined) return 'No job worker has run jobs yet.';
  if (seconds <= staleSeconds) return undefined;
  return `No job worker has run jobs for ${Math.round(seconds)} s (more than ${staleSeconds} s).`;
}

/** The queues' health for the metrics: each queue's oldest due job not yet taken, pending webhook deliveries, the heartbeat's age. */
export async function queueHealth(db: Database): Promise<QueueHealth> {
  const [oldest, [pending], sinceHeartbeat] = await Promise.all([
    db.$queryRawUnsafe<Array<{ name: string; seconds: number }>>(OLDEST_PENDING_JOBS),
    db.$queryRawUnsafe<Array<{ n: number }>>(PENDING_DELIVERIES),
    secondsSinceHeartbeat(db),
  ]);
  return {
    oldestPendingSeconds: oldest.map((row) => ({ queue: row.name, seconds: row.seconds })),
    deliveriesPending: pending?.n ?? 0,
    secondsSinceHeartbeat: sinceHeartbeat,
  };
}
