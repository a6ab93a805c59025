/**
 * What a checkout's completion checks before anything is charged: before its lock, what it needs to become an order
 * (requireOrderable); under its lock, that nothing it was checked on changed meanwhile (payableUnderLock: the
 * shipping rate rule, a draft as its checkout shows it), and that its payment step has not lapsed since (a lapsed step
 * is opened again in a transaction of its own, LapsedMeanwhile). A payment step whose draft cannot be paid any more
 * is refused (stepRefused): a payment the shopper confirmed is refunded (Stripe's event, or the lapse job).
 */
import type { Tx } from '../../db/client.js';
import type { Checkout, CheckoutLine } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { lockDraftForPayment } from '../draft-orders/index.js';
import { awaitsAction } from './checkout-access.js';
import { requireDraftAsOpened } from './checkout-from-draft.js';

/** The draft a checkout pays, locked, with its items as they are now. */
export type LockedDraft = Awaited<ReturnType<typeof lockDraftForPayment>>;

/** 400 naming what the order still needs: an e-mail, a line, a shipping address. */
export function requireOrderable(checkout: Checkout): void {
  if (!checkout.email) throw invalidField('email', "Set the checkout's email before completing it.");
  if (checkout.lineCount === 0) throw invalidField('lines', 'Add at least one line before completing the checkout.');
  if (!checkout.shippingAddress)
    throw invalidField('shipping_address', 'Set a shipping address before completing the checkout.');
}

/** A payment step whose hold is over: opened again before the checkout completes. */
export const isLapsedStep = (checkout: Checkout) => checkout.status === 'requires_action' && !awaitsAction(checkout);

/**
 * Thrown under the checkout's lock when its payment step lapsed after completeCheckout looked: giving its held store
 * credit back locks the customer's account, which a completion locks only after the codes and the variants, so it
 * is done in a transaction of its own and the completion runs again.
 */
export class LapsedMeanwhile extends Error {}

/**
 * Under the checkout's lock: what completing it needs still holds. A draft's checkout: the draft locked, payable and
 * as the checkout shows it (409 otherwise); the draft is answered. Any other: requireOrderable, and when no rate is
 * chosen, the checkout unchanged since `seen` (whose rates were checked before the lock, a carrier may take seconds):
 * 409 conflict otherwise, complete it again.
 */
export async function payableUnderLock(
  tx: Tx,
  ctx: Ctx,
  checkout: Checkout,
  seen: Checkout,
  lines: CheckoutLine[],
): Promise<LockedDraft | undefined> {
  if (isLapsedStep(checkout)) throw new LapsedMeanwhile();
  if (checkout.draftOrderId) {
    try {
      const draft = await lockDraftForPayment(ctx, tx, checkout.draftOrderId);
      requireDraftAsOpened(checkout, lines, draft);
      return draft;
    } catch (error) {
      // A Stripe payment step under way may have been confirmed by the shopper meanwhile: the refusal says so.
      throw error instanceof AppError && awaitsAction(checkout) ? stepRefused(error) : error;
    }
  }
  requireOrderable(checkout);
  if (!checkout.shippingRate && checkout.updatedAt.getTime() !== seen.updatedAt.getTime()) {
    throw new AppError(
      'conflict',
      'The checkout changed while it was being completed; review it (its shipping rate) and complete it again. Nothing was charged.',
    );
  }
  return undefined;
}

/**
 * The refusal of a draft's checkout whose payment step waits (202) while its draft cannot be paid any more
 * (completed, deleted or changed meanwhile): nothing is written, and a PaymentIntent the shopper confirmed
 * meanwhile is refunded in full when Stripe reports it (receiveStripeWebhook), or at the latest when the step's hold
 * ends (endLapsedPayment reads it back); one that was not is cancelled then.
 */
function stepRefused(refusal: AppError): AppError {
  const message = `${refusal.message.replace(/ Nothing was charged\.$/, '')} A payment confirmed for it is refunded in full.`;
  return new AppError(refusal.code, message, refusal.options);
}
