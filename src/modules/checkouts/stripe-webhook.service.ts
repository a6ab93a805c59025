import Stripe from 'stripe';
import type { AppDeps } from '../../app-deps.js';
import { systemCtx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { placeOrder, type CompletionOptions } from './checkout-complete.js';
import { releasePaymentStep } from './checkout-store-credit.js';
import { linesOf, NO_PAYMENT } from './checkouts.service.js';

const HANDLED = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']);
const badSignature = (message: string) => new AppError('invalid_request', message, { field: 'Stripe-Signature' });

/**
 * The event Stripe sent, verified with the project's stripe_webhook_secret by the SDK's own check
 * (`stripe.webhooks.constructEvent` over the raw body: HMAC-SHA256, constant-time, 5 minutes' tolerance); 400 when
 * the signature does not verify or the project has no secret, 404 for an unknown project.
 */
async function verifiedEvent(deps: AppDeps, projectId: string, rawBody: string | undefined, signature: string) {
  const project = await deps.db.project.findUnique({ where: { id: projectId } });
  if (!project) throw notFound('Project not found.');
  if (!project.stripeWebhookSecret) {
    throw badSignature(
      "The project has no stripe_webhook_secret, so no Stripe event can be verified; the merchant sets it in the project's settings.",
    );
  }
  try {
    return { project, event: Stripe.webhooks.constructEvent(rawBody ?? '', signature, project.stripeWebhookSecret) };
  } catch {
    throw badSignature(
      "The Stripe-Signature header does not verify this event with the project's stripe_webhook_secret.",
    );
  }
}

/**
 * Handles a verified `payment_intent.succeeded` / `payment_intent.payment_failed` event (openapi.yaml,
 * receiveStripeWebhook). Under the checkout's row lock, as completeCheckout takes it: a checkout waiting on the
 * PaymentIntent is completed into its order (succeeded) or opened again with its units released (failed); one that
 * a client's call completed first, or that waits on another payment, is left as it is. Other events are ignored.
 */
export async function receiveStripeEvent(
  deps: AppDeps,
  input: { projectId: string; rawBody: string | undefined; signature: string; requestId: string },
  options: CompletionOptions,
): Promise<void> {
  const { project, event } = await verifiedEvent(deps, input.projectId, input.rawBody, input.signature);
  if (!HANDLED.has(event.type)) return;
  const intent = event.data.object as Stripe.PaymentIntent;
  const ctx = systemCtx(deps, project, 'stripe-webhook', input.requestId);
  await writeTx(ctx, {}, async (tx) => {
    const waiting = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM checkouts
      WHERE project_id = ${project.id} AND payment_provider = 'stripe' AND payment_reference = ${intent.id}
      FOR UPDATE`;
    if (waiting.length === 0) return;
    const checkout = await tx.checkout.findUniqueOrThrow({ where: { id: waiting[0].id } });
    if (checkout.status !== 'requires_action') return;
    if (event.type === 'payment_intent.succeeded') {
      const lines = await linesOf(tx, checkout.id);
      try {
        await placeOrder(
          tx,
          ctx,
          checkout,
          lines,
          { provider: 'stripe', outcome: { status: 'succeeded', reference: intent.id } },
          options,
        );
      } catch (error) {
        // The hold lapsed and the units were sold meanwhile: the payment stays recorded on the checkout only.
        if (error instanceof AppError && error.code === 'out_of_stock') {
          ctx.log.warn('stripe webhook: paid checkout is out of stock', {
            checkout_id: checkout.id,
            payment_intent: intent.id,
          });
          throw new OutOfStockAfterPayment();
        }
        throw error;
      }
      return;
    }
    await releasePaymentStep(tx, ctx, checkout);
    await tx.checkout.update({
      where: { id: checkout.id },
      data: {
        status: 'open',
        ...NO_PAYMENT,
        updatedAt: new Date(),
      },
    });
  }).catch((error: unknown) => {
    if (!(error instanceof OutOfStockAfterPayment)) throw error;
  });
}

/** Rolls back the transaction of a paid checkout whose units are gone; acknowledged, so Stripe stops retrying. */
class OutOfStockAfterPayment extends Error {}
