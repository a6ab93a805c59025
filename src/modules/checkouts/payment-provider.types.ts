/** The payment provider interface checkouts use (payment-providers.ts chooses one per project). */

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
}

/**
 * A payment provider as checkouts use it: start a payment for an amount and perform the extra step a payment
 * asked for. (Capture, refunds and webhook verification come with providers that need them.)
 */
export type ProviderName = 'manual' | 'test' | 'stripe';

export interface PaymentProvider {
  readonly name: ProviderName;
  createPayment(request: PaymentRequest): Promise<PaymentOutcome>;
  confirmPayment(reference: string): Promise<PaymentOutcome>;
}
