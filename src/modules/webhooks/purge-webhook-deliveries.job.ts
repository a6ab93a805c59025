import { scheduledPurge } from '../../shared/job-definition.js';
import { purgeWebhookDeliveries } from './retention.js';

export const purgeWebhookDeliveriesJob = scheduledPurge({
  name: 'purge-webhook-deliveries',
  schedule: '47 3 * * *', // daily, off the hour
  what: 'webhook deliveries past retention',
  purge: (deps) => purgeWebhookDeliveries(deps.db),
});
