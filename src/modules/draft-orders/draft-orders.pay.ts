import type { Database, Tx } from '../../db/client.js';
import type { DraftLineItem, DraftOrder } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { draftIdOfPayToken } from './pay-link.js';
import { itemsOf } from './draft-orders.write.js';
import { lockRows } from '../../shared/write.js';

/** 409 draft_order_completed unless the draft can still be paid by its customer (not completed, no custom item). */
function requirePayable(draft: DraftOrder, items: DraftLineItem[] | null): void {
  if (draft.status === 'completed') {
    throw new AppError(
      'draft_order_completed',
      `Draft order #${draft.draftNumber} is already completed: its order is paid or awaiting payment with the store.`,
    );
  }
  if (items?.some((item) => !item.variantId || !item.productId)) {
    throw new AppError(
      'draft_order_completed',
      `Draft order #${draft.draftNumber} has a custom line item and cannot be paid online; the store takes its payment.`,
    );
  }
}

/**
 * The draft of the project a pay token opens, with its items: 404 when the token is malformed, forged or another
 * project's, or the draft is gone (alike, so a token cannot be probed); 409 draft_order_completed when it cannot be paid.
 */
export async function payableDraft(
  ctx: Ctx,
  db: Database | Tx,
  token: string,
): Promise<{ draft: DraftOrder; items: DraftLineItem[] }> {
  const id = draftIdOfPayToken(ctx.project, token);
  const draft = id ? await db.draftOrder.findFirst({ where: { id, projectId: ctx.project.id } }) : null;
  if (!draft) throw notFound('This pay link is not valid.');
  const items = await itemsOf(db, draft.id);
  requirePayable(draft, items);
  return { draft, items };
}

/**
 * Locks the draft a checkout pays for the rest of the transaction (before the payment is taken), so its completion
 * happens once, and answers it with its items as they are now; 409 draft_order_completed when it was completed
 * meanwhile, deleted, or has a custom item now.
 */
export async function lockDraftForPayment(
  ctx: Ctx,
  tx: Tx,
  id: string,
): Promise<{ draft: DraftOrder; items: DraftLineItem[] }> {
  await lockRows(tx, 'draft_orders', { projectId: ctx.project.id, ids: [id] });
  const draft = await tx.draftOrder.findFirst({ where: { id, projectId: ctx.project.id } });
  if (!draft) throw new AppError('draft_order_completed', 'The draft order this checkout pays was deleted.');
  const items = await itemsOf(tx, draft.id);
  requirePayable(draft, items);
  return { draft, items };
}
