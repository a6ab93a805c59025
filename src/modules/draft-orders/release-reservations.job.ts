import type { JobDefinition } from '../../shared/job-definition.js';
import { releaseExpiredReservations } from './draft-orders.reservations.js';

/** Releases a sent draft order's reserved units once they expire; enqueued by the send, to start at the expiry. */
export const releaseReservationsJob: JobDefinition<'release-reservations'> = {
  handle: async (deps, payload) => {
    const units = await releaseExpiredReservations(deps, payload.projectId, payload.draftOrderId);
    if (units > 0) {
      deps.log.info('released expired reservations', { draft_order_id: payload.draftOrderId, units });
    }
  },
};
