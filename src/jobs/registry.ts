import { purgeCheckoutsJob } from '../modules/checkouts/purge-checkouts.job.js';
import { releaseCheckoutCreditJob } from '../modules/checkouts/release-checkout-credit.job.js';
import { purgeCustomerAuthJob } from '../modules/customer-auth/purge-customer-auth.job.js';
import { purgeDeletedCustomersJob } from '../modules/customers/purge-deleted-customers.job.js';
import { releaseReservationsJob } from '../modules/draft-orders/release-reservations.job.js';
import { purgeIdempotencyKeysJob } from '../modules/platform/purge-idempotency-keys.job.js';
import { sendEmailJob } from '../modules/platform/send-email.job.js';
import { purgeStoreEventsJob } from '../modules/store-events/purge-store-events.job.js';
import { purgeSearchLogJob } from '../modules/search/purge-search-log.job.js';
import { purgeRateWindowsJob } from '../modules/usage/purge-rate-windows.job.js';
import { expireStoreCreditJob } from '../modules/store-credit/expire-store-credit.job.js';
import { purgeWebhookDeliveriesJob } from '../modules/webhooks/purge-webhook-deliveries.job.js';
import { webhookDeliverJob } from '../modules/webhooks/webhook-deliver.job.js';
import { webhookRetryJob } from '../modules/webhooks/webhook-retry.job.js';
import type { JobDefinition } from '../shared/job-definition.js';
import { workerHeartbeatJob } from './heartbeat.job.js';
import type { JobName } from '../shared/job-types.js';

/** The dead-letter queue of a job: where it goes when its retries are used up. */
export const deadLetterQueue = (name: JobName) => `${name}-dead`;

/**
 * One definition per job name (payloads in types.ts); a job without a handler does not compile. Each
 * job lives with the area it serves, as `src/modules/<area>/<name>.job.ts`.
 */
export const jobs: { [N in JobName]: JobDefinition<N> } = {
  'purge-store-events': purgeStoreEventsJob,
  'purge-customer-auth': purgeCustomerAuthJob,
  'purge-idempotency-keys': purgeIdempotencyKeysJob,
  'purge-deleted-customers': purgeDeletedCustomersJob,
  'purge-rate-windows': purgeRateWindowsJob,
  'send-email': sendEmailJob,
  'webhook-deliver': webhookDeliverJob,
  'webhook-retry': webhookRetryJob,
  'purge-webhook-deliveries': purgeWebhookDeliveriesJob,
  'purge-search-log': purgeSearchLogJob,
  'release-reservations': releaseReservationsJob,
  'worker-heartbeat': workerHeartbeatJob,
  'purge-checkouts': purgeCheckoutsJob,
  'expire-store-credit': expireStoreCreditJob,
  'release-checkout-credit': releaseCheckoutCreditJob,
};
