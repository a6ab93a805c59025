import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeDeletedCustomers } from './customers.service.js';

export const purgeDeletedCustomersJob = scheduledPurge({
  name: 'purge-deleted-customers',
  schedule: '37 2 * * *', // daily
  what: 'customers deleted more than 30 days ago',
  purge: (deps) => purgeDeletedCustomers(deps.db),
});
