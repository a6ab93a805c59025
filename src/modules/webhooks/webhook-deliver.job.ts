import type { JobDefinition } from '../../shared/job-definition.js';
import { deliverWakeUps } from './deliver.js';
import { DeliveryDispatcher } from './dispatcher.js';

/** Wake-ups of webhook deliveries (see delivery-queue.ts for why a delivery is never lost). */
export const webhookDeliverJob: JobDefinition<'webhook-deliver'> = {
  // A wake-up is active from its fetch until its delivery is claimed; a process that dies in between
  // leaves it to expire (waiting behind a slow subscription can take a minute, hence 5) and be retried.
  // One that runs out of retries loses nothing: the retry sweep wakes its delivery again.
  queue: { retryLimit: 10, retryDelay: 1, retryBackoff: true, expireInSeconds: 300 },
  // Worked by the dispatcher, which never lets a slow receiver hold up fetching for the others.
  consumer: (deps, databaseUrl) => new DeliveryDispatcher(deps, databaseUrl),
  handle: (deps, wakeUp) => deliverWakeUps(deps, [wakeUp]),
};
