import type { AppDeps } from '../app-deps.js';
import { purgeDeletedCustomers } from '../modules/customers/customers.service.js';

export const purgeDeletedCustomersJob = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '37 2 * * *', // daily
  handle: async (deps: AppDeps) => {
    const purged = await purgeDeletedCustomers(deps.db);
    deps.log.info('purged customers deleted more than 30 days ago', { purged });
  },
};
