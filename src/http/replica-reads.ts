import type { Middleware } from 'koa';
import type { AppDeps } from '../app-deps.js';
import { lsn, type Replica } from '../db/replicas.js';
import type { OperationId } from '../generated/operations.js';
import type { Ctx } from '../shared/context.js';
import { cachesReadingFrom, type ProcessCaches } from '../shared/table-version-cache.js';
import type { RequestState } from './state.js';

/**
 * The operations that read from a replica when DATABASE_REPLICA_URL is set: the costliest reads that tolerate a
 * bounded lag (openapi.yaml's description, "Consistency and read replicas"): search and suggest, the search
 * analytics, and the list pages of the largest tables. Every other operation, and every read of a project this
 * process wrote to until a replica has replayed that write, uses the primary.
 */
export const REPLICA_READS: ReadonlySet<OperationId> = new Set<OperationId>([
  'searchCatalog',
  'suggestSearch',
  'getTopSearchQueries',
  'getZeroResultSearchQueries',
  'listProducts',
  'listCustomers',
  'listOrders',
  'listDraftOrders',
]);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The request and response header carrying a consistency token: a WAL position of the primary, `X/Y` in hex. */
export const CONSISTENCY_TOKEN = 'X-Consistency-Token';
const TOKEN_FORMAT = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/**
 * Marks every request that may write (not GET, HEAD or OPTIONS) to its project in the replica router once it is
 * answered, failed or not (its transaction has committed or rolled back by then): this process's reads of that
 * project then stay on the primary until a replica has replayed it. A write answered below 500 also carries the
 * primary's WAL position read after it, as its consistency token (X-Consistency-Token), which any process honours
 * (readRouted). Without replicas it does nothing.
 */
export function markWrites(deps: AppDeps): Middleware<RequestState> {
  const replicas = deps.replicas;
  return async (ctx, next) => {
    if (!replicas || SAFE_METHODS.has(ctx.method)) {
      await next();
      return;
    }
    try {
      await next();
    } finally {
      const project = ctx.state.service?.project.id;
      if (project) replicas.wrote(project);
    }
    if (ctx.state.service && ctx.status < 500) ctx.set(CONSISTENCY_TOKEN, await replicas.primaryPosition());
  };
}

const replicaCaches = new WeakMap<Replica, ProcessCaches>();

/**
 * Runs `read` (a handler of one of REPLICA_READS) on the database its project's reads go to: `service.db` is a
 * replica's, with caches that keep only values computed while it had replayed every change heard of. When the
 * replica fails during the read (connection lost, recovery conflict) it leaves rotation and the read runs again
 * on the primary: a read-only handler is safe to repeat, so a replica's failure is never the client's error.
 * `token` (the request's X-Consistency-Token) keeps the read off replicas that have not replayed it.
 */
export async function readRouted<T>(
  deps: AppDeps,
  service: Ctx,
  read: (service: Ctx) => Promise<T>,
  token?: string,
): Promise<T> {
  const { replicas, metrics } = deps;
  if (!replicas) return read(service);
  // A consistency token from any process's write: only a replica that has replayed it may answer.
  const route = replicas.route(service.project.id, token && TOKEN_FORMAT.test(token) ? lsn(token) : 0n);
  if (route.target === 'primary') {
    metrics?.observeRoutedRead('primary', route.reason);
    return read(service);
  }
  const { replica } = route;
  let caches = service.caches && replicaCaches.get(replica);
  if (service.caches && !caches) {
    caches = cachesReadingFrom(service.caches, (projectId) => replicas.current(replica, projectId));
    replicaCaches.set(replica, caches);
  }
  try {
    const answer = await read({ ...service, db: route.db, caches });
    metrics?.observeRoutedRead(replica.name, 'replica');
    return answer;
  } catch (error) {
    if (!replicas.failed(replica, error)) throw error;
    deps.log.warn('read replica failed during a read; read again on the primary', { replica: replica.name });
    metrics?.observeRoutedRead('primary', 'failover');
    return read(service);
  }
}
