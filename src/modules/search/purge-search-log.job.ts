import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeSearchLog } from './search-log-retention.js';

export const purgeSearchLogJob = scheduledPurge({
  name: 'purge-search-log',
  schedule: '43 3 * * *', // daily, off the hour
  what: 'search log past the longest analytics period',
  purge: (deps) => purgeSearchLog(deps.db),
});
