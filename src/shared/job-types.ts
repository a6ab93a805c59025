import type { PgBoss, SendOptions } from 'pg-boss';
import type { Tx } from '../db/client.js';

/** Every job's payload, versioned so queued jobs survive deploys. */
export interface JobPayloads {
  'purge-store-events': { v: 1 };
  'purge-customer-auth': { v: 1 };
  'purge-idempotency-keys': { v: 1 };
  'purge-deleted-customers': { v: 1 };
  'purge-rate-windows': { v: 1 };
  'send-email': { v: 1; emailId: string };
  /** Wakes one webhook delivery: attempt it if it is due (see modules/webhook-queue/delivery-queue.ts). */
  'webhook-deliver': { v: 1; deliveryId: string };
  'webhook-retry': { v: 1 };
  'purge-webhook-deliveries': { v: 1 };
  'purge-search-log': { v: 1 };
  /** Releases a sent draft order's reservations once they expire (see modules/draft-orders). */
  'release-reservations': { v: 1; projectId: string; draftOrderId: string };
  /** Sent by every working process every few seconds; running it records that jobs run (src/jobs/heartbeat.job.ts). */
  'worker-heartbeat': { v: 1 };
  /** Deletes expired and long-completed checkouts (see modules/checkouts). */
  'purge-checkouts': { v: 1 };
  /** Removes what is left of expired store credit (see modules/store-credit). */
  'expire-store-credit': { v: 1 };
  /** Reopens a checkout whose payment step lapsed, giving back the store credit it held (see modules/checkouts). */
  'release-checkout-credit': { v: 1; projectId: string; checkoutId: string };
}
export type JobName = keyof JobPayloads;

export type EnqueueOptions = Pick<SendOptions, 'startAfter' | 'singletonKey' | 'priority' | 'id' | 'group'>;

/**
 * What services and jobs send jobs through (the process's JobQueue). A leaf with no imports from the
 * areas, so the service context, the process's dependencies and the areas can all name it without a cycle.
 */
export interface JobSender {
  /**
   * Sends a job inside the caller's transaction: it exists if and only if that transaction commits.
   * Returns the job id.
   */
  enqueue<N extends JobName>(tx: Tx, name: N, payload: JobPayloads[N], options?: EnqueueOptions): Promise<string>;
  /**
   * Sends several jobs of one queue in one statement inside the caller's transaction: they exist if and
   * only if that transaction commits.
   */
  enqueueMany<N extends JobName>(
    tx: Tx,
    name: N,
    sends: Array<{ payload: JobPayloads[N]; options?: EnqueueOptions }>,
  ): Promise<void>;
  /** Sends a job outside any transaction (schedules, retries started by hand). */
  send<N extends JobName>(name: N, payload: JobPayloads[N], options?: EnqueueOptions): Promise<string | null>;
  /** The underlying pg-boss, for queues worked by a loop of their own (JobDefinition.consumer) and tests. */
  readonly pgBoss: PgBoss;
}
