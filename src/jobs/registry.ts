import type { AppDeps } from '../app-deps.js';
import { purgeCustomerAuthJob } from './purge-customer-auth.job.js';
import { purgeDeletedCustomersJob } from './purge-deleted-customers.job.js';
import { purgeIdempotencyKeysJob } from './purge-idempotency-keys.job.js';
import { purgeRateWindowsJob } from './purge-rate-windows.job.js';
import { purgeStoreEventsJob } from './purge-store-events.job.js';
import { sendEmailJob } from './send-email.job.js';
import { purgeWebhookDeliveriesJob } from './purge-webhook-deliveries.job.js';
import { webhookDeliverJob } from './webhook-deliver.job.js';
import { webhookRetryJob } from './webhook-retry.job.js';

/** Every job's payload, versioned so queued jobs survive deploys. */
export interface JobPayloads {
  'purge-store-events': { v: 1 };
  'purge-customer-auth': { v: 1 };
  'purge-idempotency-keys': { v: 1 };
  'purge-deleted-customers': { v: 1 };
  'purge-rate-windows': { v: 1 };
  'send-email': { v: 1; emailId: string };
  /** Wakes one webhook delivery: attempt it if it is due (see modules/webhooks/delivery-queue.ts). */
  'webhook-deliver': { v: 1; deliveryId: string };
  'webhook-retry': { v: 1 };
  'purge-webhook-deliveries': { v: 1 };
}
export type JobName = keyof JobPayloads;

/** What a job handler gets: the process's dependencies (build a Ctx with `systemCtx` to act on a project). */
export type JobDeps = AppDeps;

export interface JobDefinition<N extends JobName> {
  /** pg-boss queue options: retries and their delays (seconds); failures past the limit land in `<name>-dead`. */
  queue: {
    retryLimit: number;
    retryDelay: number;
    retryBackoff: boolean;
    /** Seconds a job may stay active before pg-boss counts it as failed and retries it (default 15 minutes). */
    expireInSeconds?: number;
  };
  /** Cron expression (UTC) when the job runs on a schedule. */
  schedule?: string;
  /** Handles one job (pg-boss's worker calls it, unless the queue has a consumer). */
  handle: (deps: JobDeps, payload: JobPayloads[N]) => Promise<void>;
  /**
   * Works the queue with a loop of its own instead of pg-boss's worker (which waits for a whole batch
   * before fetching again): started when the process starts working, stopped before pg-boss stops. It
   * fetches and settles jobs itself through deps.jobs.pgBoss.
   */
  consumer?: (deps: JobDeps, databaseUrl: string) => { stop: () => Promise<void> };
  /** Runs once in each process when it starts working the queues. */
  onWorkerStart?: (deps: JobDeps) => Promise<void>;
}

/** The dead-letter queue of a job: where it goes when its retries are used up. */
export const deadLetterQueue = (name: JobName) => `${name}-dead`;

/** One definition per job name; a job without a handler does not compile. */
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
};
