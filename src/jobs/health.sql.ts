/** The job queues' health, read for `/readyz?scope=jobs` and the metrics (src/jobs/heartbeat.job.ts). */

/** Records that the worker $1 ran a heartbeat job now (the database's clock: machines' clocks may differ). */
export const RECORD_HEARTBEAT = `
  INSERT INTO job_worker_heartbeats (worker, ran_at) VALUES ($1, now())
  ON CONFLICT (worker) DO UPDATE SET ran_at = excluded.ran_at`;

/** Forgets workers that ran no heartbeat for a day (processes replaced long ago). */
export const FORGET_GONE_WORKERS = `DELETE FROM job_worker_heartbeats WHERE ran_at < now() - interval '1 day'`;

/** Seconds since any worker last ran a heartbeat job; null when none ever did. */
export const SECONDS_SINCE_HEARTBEAT = `
  SELECT extract(epoch FROM now() - max(ran_at))::float8 AS seconds FROM job_worker_heartbeats`;

/**
 * Per queue, the age in seconds of its oldest job that is due and not yet taken by a worker (pg-boss's states
 * `created` and `retry` with `start_after` passed), and webhook deliveries still pending.
 */
export const OLDEST_PENDING_JOBS = `
  SELECT name, extract(epoch FROM now() - min(created_on))::float8 AS seconds
  FROM pgboss.job WHERE state < 'active' AND start_after <= now() GROUP BY name`;

/** Webhook deliveries not yet settled (pending: waiting for their next attempt or their first). */
export const PENDING_DELIVERIES = `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`;
