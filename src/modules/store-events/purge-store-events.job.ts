import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeStoreEvents } from './store-events.service.js';

export const purgeStoreEventsJob = scheduledPurge({
  name: 'purge-store-events',
  schedule: '17 3 * * *', // daily, off the hour
  what: 'store events past retention',
  purge: (deps) => purgeStoreEvents(deps.db),
});
