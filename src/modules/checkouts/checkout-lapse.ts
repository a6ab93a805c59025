import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { ProviderUnavailable, providerNamed, stripePaymentIntent } from '../payments/index.js';
import type { CompletionOptions } from './checkout-complete.js';
import { isLapsedStep } from './checkout-payable.js';
import { reopenCheckout } from './checkouts.service.js';
import { settleSucceededIntent } from './stripe-webhook.service.js';

/**
 * Once a checkout's payment step has lapsed, without relying on Stripe's events (a project may have no
 * stripe_webhook_secret, a delivery may be lost): a PaymentIntent the shopper confirmed is settled as its
 * `payment_intent.succeeded` event settles it (the order placed if the checkout still can be, else a full refund).
 * Otherwise, under the checkout's row lock, a checkout still waiting on payment `reference` past its hold is opened
 * again (its units and held store credit released); then, with no transaction open, the payment is cancelled, and
 * one confirmed meanwhile (Stripe refuses the cancel) is refunded in full. A checkout that became an order with the
 * payment, or whose hold is not over (the job ran early), is left as it is. Throws ProviderUnavailable when Stripe
 * does not answer (the job is retried; every step finds what an earlier run did).
 */
export async function endLapsedPayment(
  ctx: Ctx,
  checkoutId: string,
  reference: string,
  options: CompletionOptions,
): Promise<void> {
  const seen = await ctx.db.checkout.findFirst({ where: { id: checkoutId, projectId: ctx.project.id } });
  if (seen?.paymentReference === reference && !isLapsedStep(seen)) return;
  // Stripe not answering (or refusing: a key changed since) must not keep the checkout held: it is reopened, and a
  // later run (the cancel below fails the same way, so the job is retried) reads the payment back then.
  const settled = await settledAsSucceeded(ctx, reference, options).catch((error: unknown) => {
    if (error instanceof ProviderUnavailable || error instanceof AppError) return false;
    throw error;
  });
  if (settled) return;
  const cancel = await writeTx(ctx, {}, async (tx) => {
    await lockRows(tx, 'checkouts', { projectId: ctx.project.id, ids: [checkoutId] });
    const checkout = await tx.checkout.findFirst({ where: { id: checkoutId, projectId: ctx.project.id } });
    if (checkout?.paymentReference !== reference) return true;
    if (checkout.status === 'completed') return false;
    if (checkout.reservedUntil && checkout.reservedUntil > new Date()) return false;
    await reopenCheckout(tx, ctx, checkout);
    return true;
  });
  if (!cancel) return;
  const provider = providerNamed('stripe', ctx.project, { apiBase: options.stripeApiBase });
  if (!(await provider.cancelPayment(reference))) await settledAsSucceeded(ctx, reference, options);
}

/** Reads the PaymentIntent back from Stripe; when it succeeded, settles it (settleSucceededIntent) and says so. */
async function settledAsSucceeded(ctx: Ctx, reference: string, options: CompletionOptions): Promise<boolean> {
  const endpoint = { apiBase: options.stripeApiBase };
  const intent = await stripePaymentIntent(ctx.project.stripeSecretKey, endpoint, reference);
  if (intent.status !== 'succeeded') return false;
  await settleSucceededIntent(ctx, intent, options);
  return true;
}
