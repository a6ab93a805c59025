/**
 * What other areas may use of webhooks: the store-event subscriber that queues deliveries. (Only this:
 * the store-events area imports it, and webhooks itself records store events, so nothing here may pull
 * in the recorder.)
 */
export { mayHaveSubscribers, webhookFanOut } from './fan-out.js';
