import type { Database } from '../db/client.js';
import type { Project } from '../generated/prisma/client.js';
import type { JobQueue } from '../jobs/queue.js';
import type { ListTotals } from './list-totals.js';
import type { Logger } from './logger.js';

/** Who is acting: an API key, a signed-in storefront customer, or the system (jobs). */
export type Actor =
  | { kind: 'api_key'; id: string; keyType: 'secret' | 'publishable' }
  | { kind: 'customer'; id: string; sessionId: string }
  | { kind: 'system'; name: string };

export type DataMode = 'test' | 'live';

/**
 * What every service call runs under, built once per request (or job): the project whose data it may
 * touch, who acts, the data mode, and the process's database, job queue and logger.
 */
export interface Ctx {
  db: Database;
  project: Project;
  actor: Actor;
  /** From the key's prefix; metafield values are scoped by it. */
  mode: DataMode;
  requestId: string;
  jobs: JobQueue;
  log: Logger;
  /** Cached list totals; absent: every first page counts. */
  totals?: ListTotals;
}

/** A context for background work on a project's data: actor system, live mode. */
export function systemCtx(deps: { db: Database; jobs: JobQueue; log: Logger; totals?: ListTotals }, project: Project, name: string, requestId = `job:${name}`): Ctx {
  return { db: deps.db, jobs: deps.jobs, log: deps.log, totals: deps.totals, project, actor: { kind: 'system', name }, mode: 'live', requestId };
}
