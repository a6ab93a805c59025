import type { JobDeps } from '../../shared/job-definition.js';
import { systemCtx } from '../../shared/context.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { releaseReservations } from '../inventory/index.js';

/**
 * Releases the draft's reservations that have expired (those of a later send stay), under the draft's row
 * lock, recording inventory.released as the system; a draft or project gone since releases nothing. Answers
 * how many units were released.
 */
export async function releaseExpiredReservations(
  deps: JobDeps,
  projectId: string,
  draftOrderId: string,
): Promise<number> {
  const project = await deps.db.project.findUnique({ where: { id: projectId } });
  if (!project) return 0;
  const ctx = systemCtx(deps, project, 'release-reservations');
  return writeTx(ctx, {}, async (tx) => {
    await lockRows(tx, 'draft_orders', { projectId, ids: [draftOrderId] });
    const draft = await tx.draftOrder.findFirst({ where: { id: draftOrderId, projectId } });
    if (!draft) return 0;
    return releaseReservations(tx, ctx, draft, 'expired', true);
  });
}
