import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeRateWindows } from './retention.js';

export const purgeRateWindowsJob = scheduledPurge({
  name: 'purge-rate-windows',
  schedule: '23 * * * *', // hourly: one minute row per active project-minute accumulates
  what: 'old rate-limit windows',
  purge: (deps) => purgeRateWindows(deps.db),
});
