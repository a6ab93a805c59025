import type { Ctx } from '../../shared/context.js';
import { writeTx } from '../../shared/write.js';
import { providerNamed } from '../payments/index.js';
import { releasePaymentStep } from './checkout-store-credit.js';
import { NO_PAYMENT } from './checkouts.service.js';

/**
 * Once a checkout's payment step has lapsed: under the checkout's row lock, a checkout still waiting on payment
 * `reference` past its hold is opened again (its units and held store credit released); then, with no transaction open, the provider's
 * payment is cancelled unless the checkout became an order with it. A hold not yet over (the job ran early) changes
 * nothing. A payment that succeeded meanwhile is not cancellable: its `payment_intent.succeeded` event refunds it.
 * Throws ProviderUnavailable when the provider does not answer (the job is retried). Returns whether it cancelled.
 */
export async function endLapsedPayment(
  ctx: Ctx,
  checkoutId: string,
  reference: string,
  stripeApiBase: string | undefined,
): Promise<boolean> {
  const cancel = await writeTx(ctx, {}, async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM checkouts WHERE id = ${checkoutId} AND project_id = ${ctx.project.id} FOR UPDATE`;
    if (rows.length === 0) return true;
    const checkout = await tx.checkout.findUniqueOrThrow({ where: { id: checkoutId } });
    if (checkout.paymentReference !== reference) return true;
    if (checkout.status === 'completed') return false;
    if (checkout.reservedUntil && checkout.reservedUntil > new Date()) return false;
    await releasePaymentStep(tx, ctx, checkout);
    await tx.checkout.update({
      where: { id: checkout.id },
      data: { status: 'open', ...NO_PAYMENT, updatedAt: new Date() },
    });
    return true;
  });
  if (cancel) await providerNamed('stripe', ctx.project, { apiBase: stripeApiBase }).cancelPayment(reference);
  return cancel;
}
