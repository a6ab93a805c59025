import type { JobDefinition } from '../../shared/job-definition.js';
import { systemCtx } from '../../shared/context.js';
import { endLapsedPayment } from './checkout-lapse.js';

/**
 * Ends a checkout's payment step once its hold lapsed: a payment the shopper confirmed is settled (the order, or a
 * full refund), any other is cancelled (endLapsedPayment; enqueued when a Stripe payment waits for another step, to
 * start when the hold ends); retried while the provider does not answer.
 */
export const cancelCheckoutPaymentJob: JobDefinition<'cancel-checkout-payment'> = {
  handle: async (deps, payload) => {
    const project = await deps.db.project.findUnique({ where: { id: payload.projectId } });
    if (!project) return;
    const ctx = systemCtx(deps, project, 'cancel-checkout-payment');
    await endLapsedPayment(ctx, payload.checkoutId, payload.reference, {
      smtp: Boolean(deps.config.smtpUrl),
      stripeApiBase: deps.config.stripeApiBase,
    });
  },
};
