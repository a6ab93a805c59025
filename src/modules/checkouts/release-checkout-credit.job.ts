import type { JobDefinition } from '../../shared/job-definition.js';
import { reopenLapsedCheckout } from './checkouts.service.js';

/** At the end of a payment step that held store credit: reopens the checkout if the step lapsed, giving the credit back. */
export const releaseCheckoutCreditJob: JobDefinition<'release-checkout-credit'> = {
  handle: async (deps, payload) => {
    if (await reopenLapsedCheckout(deps, payload.projectId, payload.checkoutId)) {
      deps.log.info('reopened a lapsed checkout, its store credit given back', { checkout_id: payload.checkoutId });
    }
  },
};
