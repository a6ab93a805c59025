import { deliverWakeUps } from '../modules/webhooks/deliver.js';
import type { JobDefinition } from './registry.js';

/** Wake-ups of webhook deliveries (see modules/webhooks/delivery-queue.ts for why a delivery is never lost). */
export const webhookDeliverJob: JobDefinition<'webhook-deliver'> = {
  // pg-boss retries a batch that threw (say the database was unreachable). A wake-up that runs out of
  // retries loses nothing: the retry sweep wakes its delivery again. A batch takes at most the 10 s
  // request budget plus two statements, so 60 s without finishing means its process is gone.
  queue: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 60, notify: true },
  // 25 wake-ups per fetch, 4 fetchers per process; at most 16 attempts of one subscription at once across
  // all processes (the outbound pool keeps 16 connections per receiver). Polling every 5 s finds retries
  // that come due; new deliveries wake the workers at once through NOTIFY.
  batch: { size: 25, workers: 4, perGroup: 16, pollSeconds: 5, handle: deliverWakeUps },
  handle: (deps, wakeUp) => deliverWakeUps(deps, [wakeUp]),
};
