import type { AppDeps } from '../app-deps.js';
import { purgeCustomerAuthJob } from './purge-customer-auth.job.js';
import { purgeDeletedCustomersJob } from './purge-deleted-customers.job.js';
import { purgeIdempotencyKeysJob } from './purge-idempotency-keys.job.js';
import { purgeRateWindowsJob } from './purge-rate-windows.job.js';
import { purgeStoreEventsJob } from './purge-store-events.job.js';
import { sendEmailJob } from './send-email.job.js';

/** Every job's payload, versioned so queued jobs survive deploys. */
export interface JobPayloads {
  'purge-store-events': { v: 1 };
  'purge-customer-auth': { v: 1 };
  'purge-idempotency-keys': { v: 1 };
  'purge-deleted-customers': { v: 1 };
  'purge-rate-windows': { v: 1 };
  'send-email': { v: 1; emailId: string };
}
export type JobName = keyof JobPayloads;

/** What a job handler gets: the process's dependencies (build a Ctx with `systemCtx` to act on a project). */
export type JobDeps = AppDeps;

export interface JobDefinition<N extends JobName> {
  /** pg-boss queue options: retries and their delays (seconds); failures past the limit land in `<name>-dead`. */
  queue: { retryLimit: number; retryDelay: number; retryBackoff: boolean };
  /** Cron expression (UTC) when the job runs on a schedule. */
  schedule?: string;
  handle: (deps: JobDeps, payload: JobPayloads[N]) => Promise<void>;
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
};
