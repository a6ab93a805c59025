import { purgeCustomerAuth } from '../modules/customer-auth/index.js';
import type { JobDefinition } from './registry.js';

/** Hourly: ended and expired sessions, expired refresh tokens, used or expired reset tokens, idle lockout counts. */
export const purgeCustomerAuthJob: JobDefinition<'purge-customer-auth'> = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '23 * * * *', // hourly, off the hour
  handle: async (deps) => {
    const purged = await purgeCustomerAuth(deps.db);
    deps.log.info('purged ended customer sessions and used or expired auth tokens', purged);
  },
};
