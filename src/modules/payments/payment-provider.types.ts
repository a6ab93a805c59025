/** The payment provider interface (payment-providers.ts chooses one per project): checkouts pay, orders refund. */

/** What a provider answers for a payment: taken, left to the merchant, waiting for another step, or declined. */
export interface PaymentOutcome {
  status: 'succeeded' | 'pending' | 'requires_action' | 'declined';
  /** The provider's reference of the payment (null when none was made). */
  reference: string | null;
  /** With `requires_action` from Stripe: the PaymentIntent's client_secret, for Stripe.js. */
  clientSecret?: string | null;
}

export interface PaymentRequest {
  amount: number;
  currency: string;
  /** The client's payment token, if it sent one. */
  token: string | undefined;
  /** The client's Stripe PaymentMethod id (the stripe provider), if it sent one. */
  paymentMethod?: string;
  /** The project paying (Stripe keeps it in the PaymentIntent's metadata). */
  projectId?: string;
  /** The checkout paid for: a provider keys its payment on it, so a retry never makes a second payment. */
  checkoutId: string;
  /**
   * Names this payment attempt of the checkout (when its stock hold ends): a new attempt after a lapsed one (whose
   * payment was cancelled) makes a new payment; a retry of the same attempt finds the same one.
   */
  attempt?: string;
}

/** A refund asked of the provider: part or all of the payment `reference`, keyed so a retry makes no second refund. */
export interface RefundRequest {
  /** The provider's reference of the payment refunded (a PaymentIntent id with Stripe). */
  reference: string;
  amount: number;
  currency: string;
  /** The same key names the same refund: the API's refund id (rfnd_), or the payment's own for an automatic refund. */
  idempotencyKey: string;
  /** Kept with the provider's refund (Stripe metadata), so its webhooks name the API's refund. */
  metadata: Record<string, string>;
}

/** What a provider answers for a refund: returned, still under way, or refused (with the provider's reason). */
export interface RefundOutcome {
  status: 'succeeded' | 'pending' | 'failed';
  /** The provider's reference of the refund (a Stripe re_ id); null when none was made. */
  reference: string | null;
  failureReason?: string | null;
}

export type ProviderName = 'manual' | 'test' | 'stripe';

/**
 * A payment provider: start a payment for an amount, perform the extra step a payment asked for, refund (part of)
 * a payment taken, cancel a payment that will not be used. Payments are captured when they succeed (no separate
 * capture step: openapi.yaml, completeCheckout).
 */
export interface PaymentProvider {
  readonly name: ProviderName;
  createPayment(request: PaymentRequest): Promise<PaymentOutcome>;
  confirmPayment(reference: string): Promise<PaymentOutcome>;
  /** Throws ProviderUnavailable when the provider did not answer (the refund stays pending and is asked again). */
  refundPayment(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Cancels a payment that has not succeeded (a lapsed payment step). A payment settled meanwhile (succeeded or
   * cancelled) is left as it is: false then.
   */
  cancelPayment(reference: string): Promise<boolean>;
}

/** The provider did not answer (or answered that it failed): nothing is known, so the caller asks again later. */
export class ProviderUnavailable extends Error {}
