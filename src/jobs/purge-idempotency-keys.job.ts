import { purgeIdempotencyKeys } from '../shared/idempotency-keys.js';
import type { JobDefinition } from './registry.js';

export const purgeIdempotencyKeysJob: JobDefinition<'purge-idempotency-keys'> = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '7 * * * *', // hourly
  handle: async (deps) => {
    const purged = await purgeIdempotencyKeys(deps.db);
    deps.log.info('purged expired idempotency keys', { purged });
  },
};
