/**
 * What other areas may use of the webhook delivery queue: the store-event subscriber that queues deliveries
 * (store-events imports it) and the wake-ups, lease and listener the webhooks area delivers with. Below both
 * store-events and webhooks, which records store events itself, so nothing here may pull in either.
 */
export { mayHaveSubscribers, subscriptionsWritten, webhookFanOut } from './fan-out.js';
export {
  LEASE_SECONDS,
  newWakeJobId,
  sendWakeUps,
  sweepDeliveries,
  WAKE_QUEUE,
  wakeDueDeliveries,
} from './delivery-queue.js';
export { WAKE_CHANNEL, WakeListener } from './wake-listener.js';
