import { purgeWebhookDeliveries } from '../modules/webhooks/retention.js';
import type { JobDefinition } from './registry.js';

export const purgeWebhookDeliveriesJob: JobDefinition<'purge-webhook-deliveries'> = {
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
  schedule: '47 3 * * *', // daily, off the hour
  handle: async (deps) => {
    const purged = await purgeWebhookDeliveries(deps.db);
    deps.log.info('purged webhook deliveries past retention', { purged });
  },
};
