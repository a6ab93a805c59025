import { isOuterTransaction } from '../../db/nested-transaction.js';
import type { Tx } from '../../db/client.js';
import type { Order, Refund } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { providerNamed, ProviderUnavailable, type ProviderName, type RefundOutcome } from '../payments/index.js';
import { recordEvent } from '../store-events/index.js';
import { recordOrderMove } from './order-history.js';
import { toRefundResource, type OrderPaymentResource } from './orders.mappers.js';
import { findOrder } from './orders.service.js';

/** Where the stripe provider's SDK calls (config.stripeApiBase: a local stand-in in tests). */
export interface RefundOptions {
  stripeApiBase?: string;
}

/**
 * The payment a refund of `order` goes back through: its last payment taken by a provider (store credit is no
 * provider: its part goes back to the customer's store credit), else manual.
 */
export function paymentOf(order: Order): { provider: ProviderName; reference: string | null } {
  const taken = (order.payments as OrderPaymentResource[])
    .filter((payment) => payment.status === 'succeeded' && payment.reference !== null)
    .filter((payment): payment is ProviderPayment => payment.provider !== 'store_credit')
    .at(-1);
  return taken ? { provider: taken.provider, reference: taken.reference } : { provider: 'manual', reference: null };
}

type ProviderPayment = OrderPaymentResource & { provider: ProviderName };

/** The part of a refund its provider returns: the amount less what went back to store credit. */
export const providerPart = (refund: Refund): bigint => refund.amount - refund.storeCreditAmount;

/**
 * settleRefund for a refund whose transaction has committed; null inside an outer transaction (an Idempotency-Key's),
 * where nothing is committed yet and the refund's settle-refund job asks the provider once it is.
 */
export async function settleCommittedRefund(
  ctx: Ctx,
  refundId: string,
  options: RefundOptions,
): Promise<{ refund: Refund; order: Order } | null> {
  return isOuterTransaction(ctx.db) ? null : settleRefund(ctx, refundId, options);
}

/**
 * Asks the order's provider for a pending refund (with no transaction open: a provider may take seconds) and
 * settles its answer (applyRefundOutcome). The provider's idempotency key is the refund's id, so asking again
 * (a retried job, a lost answer) never returns the money twice. Null when the refund is gone; the refund as it
 * stays when it is no longer pending or the provider did not answer (still pending: the settle-refund job asks again).
 */
export async function settleRefund(
  ctx: Ctx,
  refundId: string,
  options: RefundOptions,
): Promise<{ refund: Refund; order: Order } | null> {
  const refund = await ctx.db.refund.findFirst({ where: { id: refundId, projectId: ctx.project.id } });
  if (!refund) return null;
  const order = await findOrder(ctx, ctx.db, refund.orderId);
  if (refund.status !== 'pending') return { refund, order };
  const payment = paymentOf(order);
  let outcome: RefundOutcome;
  try {
    outcome = await providerNamed(refund.provider, ctx.project, { apiBase: options.stripeApiBase }).refundPayment({
      reference: payment.reference ?? '',
      amount: Number(providerPart(refund)),
      currency: order.currency,
      idempotencyKey: refund.id,
      metadata: { refund_id: refund.id, order_id: order.id, project_id: ctx.project.id },
    });
  } catch (error) {
    // The provider cannot be asked at all (no Stripe key any more): the refund fails, its provider part given back.
    if (error instanceof AppError) {
      return applyRefundOutcome(ctx, refund.id, { status: 'failed', reference: null, failureReason: error.message });
    }
    if (!(error instanceof ProviderUnavailable)) throw error;
    ctx.log.warn('refund: the payment provider did not answer; the refund stays pending', {
      refund_id: refund.id,
      provider: refund.provider,
      error: error.message,
    });
    return { refund, order };
  }
  return applyRefundOutcome(ctx, refund.id, outcome);
}

/** The moves a refund's status may make: the provider answers a pending refund; Stripe may fail a succeeded one later. */
const MOVES: Record<string, readonly string[]> = {
  pending: ['succeeded', 'failed'],
  succeeded: ['failed'],
  failed: [],
};

/**
 * Settles a refund with its provider's answer, in one transaction under the order's row lock, exactly once per
 * move (a replayed webhook or a second answer changes nothing): the provider's reference is kept; succeeded
 * records refund.succeeded; failed records refund.failed with the provider's reason and gives the provider's part
 * back (total_refunded, financial_status and the customer's total_spent less that part; order.updated). The store
 * credit part stays returned, and units the refund restocked stay in stock: they came back whatever happens to the
 * money. Null for an unknown refund.
 */
export async function applyRefundOutcome(
  ctx: Ctx,
  refundId: string,
  outcome: RefundOutcome,
): Promise<{ refund: Refund; order: Order } | null> {
  return writeTx(ctx, {}, async (tx) => {
    const seen = await tx.refund.findFirst({ where: { id: refundId, projectId: ctx.project.id } });
    if (!seen) return null;
    const before = await findOrder(ctx, tx, seen.orderId, true);
    const current = await tx.refund.findUniqueOrThrow({ where: { id: refundId } });
    if (!MOVES[current.status].includes(outcome.status)) {
      if (current.providerReference !== null || outcome.reference === null) return { refund: current, order: before };
      const refund = await tx.refund.update({
        where: { id: refundId },
        data: { providerReference: outcome.reference },
      });
      return { refund, order: before };
    }
    const refund = await tx.refund.update({
      where: { id: refundId },
      data: {
        status: outcome.status,
        providerReference: outcome.reference ?? current.providerReference,
        failureReason:
          outcome.status === 'failed' ? (outcome.failureReason ?? 'The provider refused the refund.') : null,
      },
    });
    const label = `Refund of ${refund.amount} ${before.currency} on order #${before.orderNumber}`;
    const order = outcome.status === 'failed' ? await giveBack(ctx, tx, before, refund) : before;
    await recordEvent(tx, ctx, {
      type: outcome.status === 'failed' ? 'refund.failed' : 'refund.succeeded',
      resourceType: 'refund',
      resourceId: refund.id,
      summary: outcome.status === 'failed' ? `${label} failed: ${refund.failureReason}` : `${label} succeeded`,
      payload: toRefundResource(refund, before.currency),
    });
    return { refund, order };
  });
}

/** The order and the customer's total_spent without a failed refund's provider part (it no longer counts). */
async function giveBack(ctx: Ctx, tx: Tx, before: Order, refund: Refund): Promise<Order> {
  const part = providerPart(refund);
  if (part === 0n) return before;
  const totalRefunded = before.totalRefunded - part;
  const financialStatus =
    totalRefunded <= 0n ? 'paid' : totalRefunded === before.total ? 'refunded' : 'partially_refunded';
  const after = await tx.order.update({ where: { id: before.id }, data: { totalRefunded, financialStatus } });
  if (after.customerId) {
    await tx.$executeRaw`UPDATE customers SET total_spent = total_spent + ${part} WHERE id = ${after.customerId} AND project_id = ${ctx.project.id}`;
  }
  await recordOrderMove(tx, ctx, { before, after, fields: ['financial_status', 'total_refunded'] });
  return after;
}

/** The project's refund that a provider's refund reference (or the API refund id it carries) names, if any. */
export async function refundNamed(ctx: Ctx, ids: { refundId?: string; reference?: string }): Promise<Refund | null> {
  if (!ids.refundId && !ids.reference) return null;
  return ctx.db.refund.findFirst({
    where: {
      projectId: ctx.project.id,
      OR: [
        ...(ids.refundId ? [{ id: ids.refundId }] : []),
        ...(ids.reference ? [{ providerReference: ids.reference }] : []),
      ],
    },
  });
}
