import os from 'node:os';
import type { JobDefinition } from '../shared/job-definition.js';
import { FORGET_GONE_WORKERS, RECORD_HEARTBEAT } from './health.sql.js';

// Each process that works the queues sends one heartbeat job this often (src/jobs/queue.ts): with a worker
// running jobs, the newest heartbeat is never much older than this plus pg-boss's fetch interval (2 s).
export const HEARTBEAT_SECONDS = 5;

/** `<hostname>:<pid>`: this process among the workers (and the `process` label of its metrics). */
export const PROCESS_NAME = `${os.hostname()}:${process.pid}`;

/**
 * The worker heartbeat: running it proves a worker fetches and runs jobs; it records the time under the name
 * of the process that ran it. Never retried (the next one comes in HEARTBEAT_SECONDS).
 */
export const workerHeartbeatJob: JobDefinition<'worker-heartbeat'> = {
  // About 720 a worker an hour: kept an hour once done, not pg-boss's week.
  queue: { retryLimit: 0, retryDelay: 0, retryBackoff: false, expireInSeconds: 60, deleteAfterSeconds: 3_600 },
  handle: async (deps) => {
    await deps.db.$executeRawUnsafe(RECORD_HEARTBEAT, PROCESS_NAME);
    await deps.db.$executeRawUnsafe(FORGET_GONE_WORKERS);
  },
};
