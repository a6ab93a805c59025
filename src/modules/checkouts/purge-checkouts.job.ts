import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeCheckouts } from './checkouts.purge.js';

export const purgeCheckoutsJob = scheduledPurge({
  name: 'purge-checkouts',
  schedule: '17 * * * *', // hourly
  what: 'expired checkouts, checkouts completed more than 30 days ago and lapsed checkout holds',
  purge: (deps) => purgeCheckouts(deps.db),
});
