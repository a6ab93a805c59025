import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeIdempotencyKeys } from '../../shared/idempotency-keys.js';

/**
 * Run by the platform area, which owns what every project's API shares: the keys belong to no one area
 * (the idempotency middleware writes them), and their queries stay in shared/idempotency-keys.ts.
 */
export const purgeIdempotencyKeysJob = scheduledPurge({
  name: 'purge-idempotency-keys',
  schedule: '7 * * * *', // hourly
  what: 'expired idempotency keys',
  purge: (deps) => purgeIdempotencyKeys(deps.db),
});
