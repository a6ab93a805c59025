import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeCustomerAuth } from './purge.js';

/** Hourly: ended and expired sessions, expired refresh tokens, used or expired reset tokens, idle lockout counts. */
export const purgeCustomerAuthJob = scheduledPurge({
  name: 'purge-customer-auth',
  schedule: '23 * * * *', // hourly, off the hour
  what: 'ended customer sessions and used or expired auth tokens',
  purge: (deps) => purgeCustomerAuth(deps.db),
});
