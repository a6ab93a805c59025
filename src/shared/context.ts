import type { Database } from '../db/client.js';
import type { Project } from '../generated/prisma/client.js';
import type { JobSender } from './job-types.js';
import type { Logger } from './logger.js';
import type { ProcessCaches } from './table-version-cache.js';

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
  /**
   * The data mode metafield values are read and written in: the key's, except that a live secret key with
   * `X-Test-Mode: true` works on test values (openapi.yaml, "Test and live data").
   */
  mode: DataMode;
  requestId: string;
  jobs: JobSender;
  log: Logger;
  /** The process's caches kept exact by the change feed; absent: every read goes to the database. */
  caches?: ProcessCaches;
}

/** A context for background work on a project's data: actor system, live mode. */
export function systemCtx(
  deps: { db: Database; jobs: JobSender; log: Logger; caches?: ProcessCaches },
  project: Project,
  name: string,
  requestId = `job:${name}`,
): Ctx {
  return {
    db: deps.db,
    jobs: deps.jobs,
    log: deps.log,
    caches: deps.caches,
    project,
    actor: { kind: 'system', name },
    mode: 'live',
    requestId,
  };
}

/** Whether the caller reads as a storefront (a publishable key or a signed-in customer): storefront-visible data only. */
export function isStorefront(ctx: Pick<Ctx, 'actor'>): boolean {
  return ctx.actor.kind === 'api_key' ? ctx.actor.keyType === 'publishable' : ctx.actor.kind === 'customer';
}
