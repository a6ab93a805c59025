import type { AppDeps } from '../app-deps.js';
import type { JobName, JobPayloads } from './job-types.js';

/** What a job handler gets: the process's dependencies (build a Ctx with `systemCtx` to act on a project). */
export type JobDeps = AppDeps;

/** pg-boss queue options: retries and their delays (seconds); failures past the limit land in `<name>-dead`. */
export interface QueueOptions {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  /** Seconds a job may stay active before pg-boss counts it as failed and retries it (default 15 minutes). */
  expireInSeconds?: number;
  /** Seconds a completed job is kept (pg-boss's default: 7 days); frequent jobs keep theirs shorter. */
  deleteAfterSeconds?: number;
}

/** The queue options of every job that names none of its own: 3 retries, 60 s apart and doubling. */
export const DEFAULT_QUEUE_OPTIONS: QueueOptions = { retryLimit: 3, retryDelay: 60, retryBackoff: true };

export interface JobDefinition<N extends JobName> {
  /** Queue options that differ from DEFAULT_QUEUE_OPTIONS. */
  queue?: Partial<QueueOptions>;
  /** Cron expression (UTC) when the job runs on a schedule. */
  schedule?: string;
  /** Handles one job (pg-boss's worker calls it, unless the queue has a consumer). */
  handle: (deps: JobDeps, payload: JobPayloads[N]) => Promise<void>;
  /**
   * Works the queue with a loop of its own instead of pg-boss's worker (which waits for a whole batch
   * before fetching again): started when the process starts working, stopped before pg-boss stops. It
   * fetches and settles jobs itself through deps.jobs.pgBoss.
   */
  consumer?: (deps: JobDeps, databaseUrl: string) => { stop: () => Promise<void> };
  /** Runs once in each process when it starts working the queues. */
  onWorkerStart?: (deps: JobDeps) => Promise<void>;
}

/** A job's queue options: its own over the defaults. */
export function queueOptionsOf(job: Pick<JobDefinition<JobName>, 'queue'>): QueueOptions {
  return { ...DEFAULT_QUEUE_OPTIONS, ...job.queue };
}

/**
 * A job that deletes what has outlived its retention, on a schedule (cron, UTC), with the default
 * retries; each run logs `purged <what>` with the job's name and the number of rows (or the numbers per kind).
 */
export function scheduledPurge<N extends JobName>(options: {
  name: N;
  schedule: string;
  what: string;
  purge: (deps: JobDeps) => Promise<number | Record<string, number>>;
}): JobDefinition<N> {
  return {
    schedule: options.schedule,
    handle: async (deps) => {
      const purged = await options.purge(deps);
      const counts = typeof purged === 'number' ? { purged } : purged;
      deps.log.info(`purged ${options.what}`, { job: options.name, ...counts });
    },
  };
}
