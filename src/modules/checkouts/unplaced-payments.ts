import type { Tx } from '../../db/client.js';
import type { UnplacedPayment } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { providerNamed, ProviderUnavailable, type ProviderName, type RefundOutcome } from '../payments/index.js';

/** A payment taken for a checkout that will not become an order. */
export interface UnplacedPaymentInput {
  checkoutId: string;
  provider: ProviderName;
  reference: string;
  amount: number;
  currency: string;
}

/**
 * Records, in the caller's transaction, a payment that cannot become an order (once per provider payment: a
 * replayed webhook finds the same record). Its refund is asked after commit (refundUnplaced).
 */
export async function recordUnplacedPayment(tx: Tx, ctx: Ctx, input: UnplacedPaymentInput): Promise<void> {
  await tx.unplacedPayment.createMany({
    data: [
      {
        id: newId('upay_'),
        projectId: ctx.project.id,
        checkoutId: input.checkoutId,
        provider: input.provider,
        reference: input.reference,
        amount: BigInt(input.amount),
        currency: input.currency.toUpperCase(),
        refundStatus: 'pending',
      },
    ],
    skipDuplicates: true,
  });
  ctx.log.warn('payment: a payment that cannot become an order is refunded', {
    checkout_id: input.checkoutId,
    provider: input.provider,
    reference: input.reference,
  });
}

/**
 * Refunds an unplaced payment in full through its provider (no transaction open; the provider's idempotency key
 * is the record's id, so asking again returns the money once) and keeps the answer on the record. Stripe not
 * answering is 503, so Stripe sends its event again and the refund is asked again.
 */
export async function refundUnplaced(
  ctx: Ctx,
  provider: ProviderName,
  reference: string,
  stripeApiBase: string | undefined,
): Promise<UnplacedPayment | null> {
  const record = await ctx.db.unplacedPayment.findFirst({ where: { projectId: ctx.project.id, provider, reference } });
  if (!record || record.refundStatus !== 'pending') return record;
  let outcome: RefundOutcome;
  try {
    outcome = await providerNamed(provider, ctx.project, { apiBase: stripeApiBase }).refundPayment({
      reference,
      amount: Number(record.amount),
      currency: record.currency,
      idempotencyKey: record.id,
      metadata: { unplaced_payment_id: record.id, checkout_id: record.checkoutId, project_id: ctx.project.id },
    });
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    throw new AppError('service_unavailable', 'Stripe did not answer the refund of an unplaced payment; retry.', {
      headers: { 'Retry-After': '5' },
    });
  }
  return settleUnplaced(ctx, { id: record.id }, outcome);
}

/** The refund states an answer may move a record from: pending, then succeeded or failed (Stripe may fail a succeeded one). */
const MOVES_FROM: Record<RefundOutcome['status'], string[]> = {
  pending: [],
  succeeded: ['pending'],
  failed: ['pending', 'succeeded'],
};

/**
 * Keeps a provider's answer on the unplaced payment's refund (`id`, or the provider's refund `reference`). The move
 * is one conditional UPDATE, so of two answers arriving together neither undoes the other: a failed refund never
 * ends recorded as succeeded. An answer that moves nothing still records the refund's reference when none is kept.
 */
export async function settleUnplaced(
  ctx: Ctx,
  which: { id?: string; refundReference?: string },
  outcome: RefundOutcome,
): Promise<UnplacedPayment | null> {
  const record = await ctx.db.unplacedPayment.findFirst({
    where: {
      projectId: ctx.project.id,
      ...(which.id ? { id: which.id } : { refundReference: which.refundReference ?? '' }),
    },
  });
  if (!record) return null;
  const reference = outcome.reference === null ? {} : { refundReference: outcome.reference };
  const moved = await ctx.db.unplacedPayment.updateMany({
    where: { id: record.id, refundStatus: { in: MOVES_FROM[outcome.status] } },
    data: {
      refundStatus: outcome.status,
      ...reference,
      failureReason: outcome.status === 'failed' ? (outcome.failureReason ?? null) : null,
    },
  });
  if (moved.count === 0 && outcome.reference !== null)
    await ctx.db.unplacedPayment.updateMany({ where: { id: record.id, refundReference: null }, data: reference });
  return ctx.db.unplacedPayment.findUnique({ where: { id: record.id } });
}
