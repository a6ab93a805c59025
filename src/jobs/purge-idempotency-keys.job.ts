import type { AppDeps } from '../app-deps.js';
import { IDEMPOTENCY_TTL_MS } from '../http/middleware/idempotency.js';

/** Deletes idempotency keys older than 24 hours; returns how many. */
export async function purgeIdempotencyKeys(deps: Pick<AppDeps, 'db'>): Promise<number> {
  const { count } = await deps.db.idempotencyKey.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } } });
  return count;
}

export const purgeIdempotencyKeysJob = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '7 * * * *', // hourly
  handle: async (deps: AppDeps) => {
    const purged = await purgeIdempotencyKeys(deps);
    deps.log.info('purged expired idempotency keys', { purged });
  },
};
