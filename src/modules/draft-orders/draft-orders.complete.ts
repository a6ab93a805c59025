import type pg from 'pg';
import { poolOf, type Database, type Tx } from '../../db/client.js';
import type { DraftLineItem, DraftOrder, Order } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeOnConnection, writeTx } from '../../shared/write.js';
import { deductStock, deductionOn, draftStockSteps, releaseReservations } from '../inventory/index.js';
import {
  createOrderCompletingDraft,
  createOrderFromDraft,
  draftCompletedSummary,
  type OrderPaymentResource,
} from '../orders/index.js';
import { changedFields, eventHasSubscribers, recordEvent } from '../store-events/index.js';
import { countDraftUses, recordDraftRedemptions, redeemsDiscounts } from './draft-orders.discounts.js';
import { toDraftOrderResource } from './draft-orders.mappers.js';
import { requireEmailAndItems } from './draft-orders.send.js';
import { draftCompletionSteps } from './draft-orders.statements.js';
import { DRAFT_FIELDS, findDraftOrder, itemsOf } from './draft-orders.write.js';

/**
 * Turns an open or sent draft into an order, all in one transaction or not at all: its reservation consumed,
 * stock deducted for variant items from what other drafts do not hold (409 when a `deny` variant is short), the order created (number, copies, customer
 * figures, order.created), the draft completed and linked, draft_order.completed recorded. The draft's
 * row lock makes a second completion wait and then answer 400, so a draft never makes two orders. Its codes' uses
 * are counted first (409 conflict on `code` when one is used up).
 */
export async function completeDraftOrder(ctx: Ctx, id: string): Promise<Order> {
  return completeDraft(ctx, id).catch((error: unknown) => {
    // Its answers are `Error`s (openapi.yaml, completeDraftOrder): a code used up is a conflict on `code`.
    if (error instanceof AppError && error.code === 'usage_limit_reached')
      throw new AppError('conflict', error.message, { field: 'code' });
    throw error;
  });
}

/** completeDraftOrder on one connection when nothing listens and nothing is to be counted, else in writeTx. */
async function completeDraft(ctx: Ctx, id: string): Promise<Order> {
  // No listener: prepared statements on one connection (no subscriber to hand the events to, inventory.low included).
  const pool = poolOf(ctx.db);
  if (pool && !(await anySubscriber(ctx.db, ctx, [...COMPLETION_EVENTS, 'inventory.low']))) {
    try {
      return await completeOnConnection(ctx, pool, id);
    } catch (error) {
      if (!(error instanceof CountsDiscounts)) throw error;
    }
  }
  return writeTx(ctx, {}, (tx) => completeDraftIn(tx, ctx, id));
}

/** A draft with reductions of codes or promotions: its completion counts their uses through Prisma (completeDraftIn). */
class CountsDiscounts extends Error {}

/**
 * completeDraftOrder in the caller's transaction (a checkout paying the draft completes it with its payment):
 * the same lock, checks, uses of codes, stock, order and events; with `paidBy`, the order is created with the id
 * and time it plans (its payments may name it) carrying the checkout and its payments, so order.created's payload
 * shows them, and the codes' uses are not counted again (the checkout counted them before taking the payment).
 */
export async function completeDraftIn(
  tx: Tx,
  ctx: Ctx,
  id: string,
  paidBy?: { planned: { id: string; at: Date }; checkoutId: string; payments: OrderPaymentResource[] },
): Promise<Order> {
  const draft = await findDraftOrder(ctx, tx, id, true);
  if (draft.status === 'completed') throw new AppError('invalid_request', 'This draft order is already completed.');
  requireEmailAndItems(draft, 'completing');
  const planned = paidBy?.planned ?? { id: newId('ord_'), at: new Date() };
  if (redeemsDiscounts(draft)) {
    // Code uses counted before any stock is taken, as a checkout's completion counts them (409 usage_limit_reached).
    if (!paidBy) await countDraftUses(ctx, tx, id);
    await recordDraftRedemptions(ctx, tx, draft, planned.id);
  }
  const items = await itemsOf(tx, id);
  // The draft's own reservation is consumed: its units become available to this deduction (and only to it, as
  // the variants stay locked until commit).
  await releaseReservations(tx, ctx, draft, undefined);
  const allocations = await deductStock(tx, ctx, demandsOf(items));
  const changes = completionChanges(draft, planned);
  if (!paidBy && !(await anySubscriber(tx, ctx, COMPLETION_EVENTS))) {
    return createOrderCompletingDraft(tx, ctx, draft, items, allocations, planned, { changes });
  }
  // The draft is completed before the order exists (its id is chosen here), so that the order's number, whose
  // counter lock serialises the project's orders until commit, is the last thing taken.
  await tx.draftOrder.update({
    where: { id },
    data: { status: 'completed', orderId: planned.id, completedAt: planned.at, updatedAt: planned.at },
  });
  const origin = paidBy && { checkoutId: paidBy.checkoutId, payments: paidBy.payments };
  const order = await createOrderFromDraft(tx, ctx, draft, items, allocations, planned, origin);
  await recordEvent(tx, ctx, {
    type: 'draft_order.completed',
    resourceType: 'draft_order',
    resourceId: id,
    summary: draftCompletedSummary(draft, order.orderNumber),
    changes,
    payload: toDraftOrderResource(completedAs(draft, planned)),
  });
  return order;
}

const COMPLETION_EVENTS = ['order.created', 'draft_order.completed'];

/**
 * completeDraftOrder as prepared statements in one transaction on one connection, for a project where no
 * subscriber listens to its events: the same locks in the same order (the draft, then the variants, then the
 * customer, then the order counter), the same checks, writes and events, in two round trips: BEGIN, the draft
 * locked, its items read as its reservations end, its variants locked, then their levels read; then the takes
 * (levels, ledger, totals, inventory.low), the customer's figures, the order with its number, the draft's
 * completion, the events, and COMMIT.
 */
async function completeOnConnection(ctx: Ctx, pool: pg.Pool, id: string): Promise<Order> {
  return writeOnConnection(
    ctx,
    pool,
    async (client, [[draft], items, ...stock]) => {
      if (!draft) throw notFound('Draft order not found.');
      if (draft.status === 'completed') throw new AppError('invalid_request', 'This draft order is already completed.');
      requireEmailAndItems(draft, 'completing');
      // Rolled back: the completion runs again in writeTx, where the uses are counted.
      if (redeemsDiscounts(draft)) throw new CountsDiscounts();
      const planned = { id: newId('ord_'), at: new Date() };
      const deduction = await deductionOn(client, ctx, demandsOf(items), stock, planned.at);
      // The takes, the order and COMMIT in one round trip: the order counter is locked for its statement and the commit only.
      return createOrderCompletingDraft(client, ctx, draft, items, deduction.allocations, planned, {
        changes: completionChanges(draft, planned),
        after: deduction.steps,
      });
    },
    [...draftCompletionSteps(ctx.project.id, id), ...draftStockSteps(id, ctx.project.id)],
  );
}

/** The stock a draft's items take: its variant items (custom items take none). */
const demandsOf = (items: DraftLineItem[]) =>
  items.flatMap((item) =>
    item.variantId
      ? [{ variantId: item.variantId, quantity: item.quantity, label: `${item.title} - ${item.variantTitle}` }]
      : [],
  );

/** Whether a subscriber (a webhook) listens to any of these events in the project (cached per process). */
async function anySubscriber(tx: Database | Tx, ctx: Ctx, types: string[]): Promise<boolean> {
  for (const type of types) if (await eventHasSubscribers(tx, ctx, type)) return true;
  return false;
}

/** The draft as its completion into order `planned` leaves it. */
const completedAs = (draft: DraftOrder, planned: { id: string; at: Date }): DraftOrder => ({
  ...draft,
  status: 'completed',
  orderId: planned.id,
  completedAt: planned.at,
  updatedAt: planned.at,
});

/** The fields draft_order.completed records as changed. */
const completionChanges = (draft: DraftOrder, planned: { id: string; at: Date }) =>
  changedFields(toDraftOrderResource(draft), toDraftOrderResource(completedAs(draft, planned)), DRAFT_FIELDS);
