import type Stripe from 'stripe';
import type { AppDeps } from '../../app-deps.js';
import type { Tx } from '../../db/client.js';
import type { Checkout } from '../../generated/prisma/client.js';
import { systemCtx, type Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { applyRefundOutcome, refundNamed } from '../orders/index.js';
import { stripeSdk, type RefundOutcome } from '../payments/index.js';
import { placeOrder, type CompletionOptions } from './checkout-complete.js';
import { redeemCheckoutDiscounts } from './checkout-discounts.service.js';
import { lockDraftVariants, requireDraftAsOpened } from './checkout-from-draft.js';
import { lockDraftForPayment } from '../draft-orders/index.js';
import { linesOf, reopenCheckout } from './checkouts.service.js';
import { recordUnplacedPayment, refundUnplaced, settleUnplaced } from './unplaced-payments.js';

const INTENT_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']);
const REFUND_EVENTS = new Set(['refund.updated', 'refund.failed', 'charge.refund.updated']);
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
  const { webhooks } = await stripeSdk();
  try {
    return { project, event: webhooks.constructEvent(rawBody ?? '', signature, project.stripeWebhookSecret) };
  } catch {
    throw badSignature(
      "The Stripe-Signature header does not verify this event with the project's stripe_webhook_secret.",
    );
  }
}

/**
 * Handles a verified Stripe event (openapi.yaml, receiveStripeWebhook): PaymentIntent events settle the checkout
 * paid with them (handleIntentEvent); Refund events (and `charge.refunded`, per refund it lists) settle the API's
 * refund, or the automatic refund of an unplaced payment, they name. Other events are acknowledged and ignored.
 */
export async function receiveStripeEvent(
  deps: AppDeps,
  input: { projectId: string; rawBody: string | undefined; signature: string; requestId: string },
  options: CompletionOptions,
): Promise<void> {
  const { project, event } = await verifiedEvent(deps, input.projectId, input.rawBody, input.signature);
  const ctx = systemCtx(deps, project, 'stripe-webhook', input.requestId);
  if (INTENT_EVENTS.has(event.type)) {
    await handleIntentEvent(ctx, event.type, event.data.object as Stripe.PaymentIntent, options);
  } else if (REFUND_EVENTS.has(event.type)) {
    await settleStripeRefund(ctx, event.data.object as Stripe.Refund);
  } else if (event.type === 'charge.refunded') {
    for (const refund of event.data.object.refunds?.data ?? []) await settleStripeRefund(ctx, refund);
  }
}

/** Settles the refund a Stripe Refund object names (by its metadata, else its id) with the Refund's status. */
async function settleStripeRefund(ctx: Ctx, refund: Stripe.Refund): Promise<void> {
  const status =
    refund.status === 'succeeded'
      ? 'succeeded'
      : ['failed', 'canceled'].includes(refund.status ?? '')
        ? 'failed'
        : 'pending';
  const outcome: RefundOutcome = {
    status,
    reference: refund.id,
    failureReason: status === 'failed' ? (refund.failure_reason ?? refund.status) : null,
  };
  const ours = await refundNamed(ctx, { refundId: refund.metadata?.refund_id, reference: refund.id });
  if (ours) {
    await applyRefundOutcome(ctx, ours.id, outcome);
    return;
  }
  const unplaced = refund.metadata?.unplaced_payment_id;
  await settleUnplaced(ctx, unplaced ? { id: unplaced } : { refundReference: refund.id }, outcome);
}

/**
 * Under the checkout's row lock, as completeCheckout takes it (the checkout named by the intent's metadata, else
 * the one whose payment it is): `payment_intent.succeeded` for a checkout waiting on the intent completes it into its
 * order; `payment_intent.payment_failed` opens it again with its units and held store credit released. A succeeded
 * intent whose checkout can no longer become its order (completed with another payment, waiting on another, reopened
 * after its hold lapsed, gone, or out of stock now) is recorded as unplaced and refunded in full after commit: no
 * money is kept without an order (a checkout still waiting on it opens again, its held store credit given back). A
 * checkout the client's call completed with this intent is left as it is.
 */
async function handleIntentEvent(
  ctx: Ctx,
  type: string,
  intent: Stripe.PaymentIntent,
  options: CompletionOptions,
): Promise<void> {
  const succeeded = type === 'payment_intent.succeeded';
  const unplaced = await writeTx(ctx, {}, async (tx) => {
    const checkout = await lockedCheckout(tx, ctx, intent);
    if (checkout?.status === 'completed' && checkout.paymentReference === intent.id) return false;
    const waiting = checkout?.status === 'requires_action' && checkout.paymentReference === intent.id;
    if (!succeeded) {
      if (waiting) await reopenCheckout(tx, ctx, checkout);
      return false;
    }
    if (waiting && (await placed(tx, ctx, checkout, intent, options))) return false;
    await recordUnplacedPayment(tx, ctx, {
      checkoutId: checkout?.id ?? intent.metadata?.checkout_id ?? '',
      provider: 'stripe',
      reference: intent.id,
      amount: intent.amount,
      currency: intent.currency,
    });
    if (waiting) await reopenCheckout(tx, ctx, checkout);
    return true;
  });
  if (unplaced) await refundUnplaced(ctx, 'stripe', intent.id, options.stripeApiBase);
}

/**
 * Settles a PaymentIntent read back from Stripe as succeeded exactly as its `payment_intent.succeeded` event does
 * (handleIntentEvent): the order placed when its checkout still waits on it, else refunded in full as unplaced.
 */
export const settleSucceededIntent = (ctx: Ctx, intent: Stripe.PaymentIntent, options: CompletionOptions) =>
  handleIntentEvent(ctx, 'payment_intent.succeeded', intent, options);

/** The project's checkout the intent pays, locked: the one its metadata names, else the one waiting on it. */
async function lockedCheckout(tx: Tx, ctx: Ctx, intent: Stripe.PaymentIntent): Promise<Checkout | null> {
  const named = intent.metadata?.checkout_id;
  const rows = named
    ? await tx.$queryRaw<Array<{ id: string }>>`
        SELECT id FROM checkouts WHERE project_id = ${ctx.project.id} AND id = ${named} FOR UPDATE`
    : await tx.$queryRaw<Array<{ id: string }>>`
        SELECT id FROM checkouts
        WHERE project_id = ${ctx.project.id} AND payment_provider = 'stripe' AND payment_reference = ${intent.id}
        FOR UPDATE`;
  return rows.length === 0 ? null : tx.checkout.findUniqueOrThrow({ where: { id: rows[0].id } });
}

/** Completes the waiting checkout with the intent (a savepoint: false, nothing written, when its units are gone). */
async function placed(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  intent: Stripe.PaymentIntent,
  options: CompletionOptions,
): Promise<boolean> {
  const lines = await linesOf(tx, checkout.id);
  await tx.$executeRawUnsafe('SAVEPOINT place_order');
  try {
    // The code uses counted at the first completion were given back while the payment waited: count them again (a
    // code used up meanwhile refuses the order like lapsed units: the payment is recorded unplaced and refunded).
    // A draft changed since its checkout was opened asks another amount than the one paid: no order of it.
    const draft = checkout.draftOrderId ? await lockDraftForPayment(ctx, tx, checkout.draftOrderId) : undefined;
    if (draft) requireDraftAsOpened(checkout, lines, draft);
    const priced = await redeemCheckoutDiscounts(ctx, tx, checkout, lines);
    if (draft) await lockDraftVariants(tx, ctx, draft.items);
    await placeOrder(
      tx,
      ctx,
      priced,
      lines,
      { provider: 'stripe', outcome: { status: 'succeeded', reference: intent.id } },
      options,
    );
    await tx.$executeRawUnsafe('RELEASE SAVEPOINT place_order');
    return true;
  } catch (error) {
    // The order cannot be made (a rule refuses it: the hold lapsed and the units were sold meanwhile, the draft it
    // pays was completed or changed by the merchant): nothing of it is written.
    if (!(error instanceof AppError) || error.code === 'service_unavailable') throw error;
    await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT place_order');
    return false;
  }
}
