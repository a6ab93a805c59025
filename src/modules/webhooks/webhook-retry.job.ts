import type { JobDefinition } from '../../shared/job-definition.js';
import { LEASE_SECONDS, sweepDeliveries } from '../webhook-queue/index.js';

/** Every 5 minutes, wakes deliveries whose attempt died or whose wake-up job is gone. */
export const webhookRetryJob: JobDefinition<'webhook-retry'> = {
  schedule: '*/5 * * * *',
  handle: async (deps) => {
    const woken = await deps.db.$transaction((tx) => sweepDeliveries(tx, deps.jobs));
    if (woken > 0) deps.log.warn('woke webhook deliveries whose attempt or wake-up was lost', { woken });
  },
  // Attempts that died with an earlier process (SIGKILL) are retried as soon as their leases lapse,
  // not up to 5 minutes later.
  onWorkerStart: async (deps) => {
    await deps.jobs.send('webhook-retry', { v: 1 }, { startAfter: LEASE_SECONDS + 1 });
  },
};
