import type { JobDefinition } from '../../shared/job-definition.js';
import { systemCtx } from '../../shared/context.js';
import { settleRefund } from './refund-settlement.js';

/** The provider still did not answer: failing the job makes pg-boss ask again later. */
class StillPending extends Error {}

/**
 * Settles a refund left pending (enqueued with it: openapi.yaml, createOrderRefund): asks its provider again under
 * the same idempotency key until it answers; nothing for a refund already settled or gone.
 */
export const settleRefundJob: JobDefinition<'settle-refund'> = {
  // About a day of attempts: 60 s doubling, ten times.
  queue: { retryLimit: 10, retryDelay: 60, retryBackoff: true },
  handle: async (deps, payload) => {
    const project = await deps.db.project.findUnique({ where: { id: payload.projectId } });
    if (!project) return;
    const ctx = systemCtx(deps, project, 'settle-refund');
    const settled = await settleRefund(ctx, payload.refundId, { stripeApiBase: deps.config.stripeApiBase });
    if (settled?.refund.status === 'pending') throw new StillPending(`refund ${payload.refundId} is still pending`);
  },
};
