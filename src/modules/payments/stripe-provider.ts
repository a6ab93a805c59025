import type Stripe from 'stripe';
import { AppError, invalidField } from '../../shared/errors.js';
import {
  ProviderUnavailable,
  type PaymentOutcome,
  type PaymentProvider,
  type RefundOutcome,
} from './payment-provider.types.js';

/** Where the SDK sends its requests: api.stripe.com, or a local stand-in (STRIPE_API_BASE, tests). */
export interface StripeEndpoint {
  apiBase?: string;
}

/** The SDK's host/port/protocol options for `apiBase` (none: Stripe's own API). */
function endpointOptions({ apiBase }: StripeEndpoint): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  return {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
  };
}

let sdk: Promise<typeof Stripe> | undefined;

/**
 * The Stripe SDK, loaded on first use: a process whose projects never pay through Stripe does not load it (about a
 * quarter of a second of CPU at each start).
 */
export const stripeSdk = (): Promise<typeof Stripe> => (sdk ??= import('stripe').then((module) => module.default));

/** A client of the project's Stripe account; 400 when the project has no stripe_secret_key. */
export async function stripeClient(secretKey: string | null, endpoint: StripeEndpoint): Promise<Stripe> {
  if (!secretKey) {
    throw new AppError(
      'invalid_request',
      "The project pays through Stripe but its stripe_secret_key is not set; the merchant sets it in the project's settings.",
    );
  }
  const StripeSdk = await stripeSdk();
  return new StripeSdk(secretKey, {
    ...endpointOptions(endpoint),
    maxNetworkRetries: 1,
    timeout: 20_000,
    telemetry: false,
  });
}

/** What a PaymentIntent's status means for the checkout. */
function outcomeOf(intent: Stripe.PaymentIntent): PaymentOutcome {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', reference: intent.id };
    case 'requires_action':
    case 'processing':
      return { status: 'requires_action', reference: intent.id, clientSecret: intent.client_secret };
    case 'requires_payment_method':
    case 'canceled':
      return { status: 'declined', reference: intent.id };
    default:
      // requires_confirmation, requires_capture: not reached with automatic capture and confirm on creation.
      return { status: 'requires_action', reference: intent.id, clientSecret: intent.client_secret };
  }
}

/**
 * Stripe's errors as the API answers them: a card error is a decline (402 by the caller), Stripe not answering 503,
 * anything else (a refused key, a bad request) 400 naming Stripe's message; no secret is ever in the message.
 */
async function calling(call: () => Promise<Stripe.PaymentIntent>): Promise<PaymentOutcome> {
  try {
    return outcomeOf(await call());
  } catch (error) {
    const { errors } = await stripeSdk();
    if (error instanceof errors.StripeCardError) {
      const intent = (error.raw as { payment_intent?: { id?: string } } | undefined)?.payment_intent;
      return { status: 'declined', reference: intent?.id ?? null };
    }
    if (error instanceof errors.StripeConnectionError || error instanceof errors.StripeAPIError) {
      throw new AppError('service_unavailable', 'Stripe did not answer; try again shortly.', {
        headers: { 'Retry-After': '5' },
      });
    }
    if (error instanceof errors.StripeError) {
      throw new AppError('invalid_request', `Stripe refused the payment: ${error.message}`);
    }
    throw error;
  }
}

/** What a Stripe Refund's status means for the API's refund (requires_action is Stripe waiting: pending). */
function refundOutcomeOf(refund: Stripe.Refund): RefundOutcome {
  const status =
    refund.status === 'succeeded'
      ? 'succeeded'
      : refund.status === 'failed' || refund.status === 'canceled'
        ? 'failed'
        : 'pending';
  return {
    status,
    reference: refund.id,
    failureReason: status === 'failed' ? (refund.failure_reason ?? refund.status) : null,
  };
}

/**
 * A refund through Stripe's Refunds API: Stripe not answering (or failing on its side) is ProviderUnavailable, so the
 * refund stays pending and is asked again with the same idempotency key; a request Stripe refuses (a payment already
 * refunded, say) is a failed refund naming Stripe's message.
 */
async function refunding(call: () => Promise<Stripe.Refund>): Promise<RefundOutcome> {
  try {
    return refundOutcomeOf(await call());
  } catch (error) {
    const { errors } = await stripeSdk();
    if (
      error instanceof errors.StripeConnectionError ||
      error instanceof errors.StripeAPIError ||
      error instanceof errors.StripeRateLimitError
    ) {
      throw new ProviderUnavailable(error.message);
    }
    if (error instanceof errors.StripeError) {
      return { status: 'failed', reference: null, failureReason: `Stripe refused the refund: ${error.message}` };
    }
    throw error;
  }
}

/** The PaymentIntent `reference` as Stripe has it now; ProviderUnavailable when Stripe does not answer or refuses. */
export async function stripePaymentIntent(
  secretKey: string | null,
  endpoint: StripeEndpoint,
  reference: string,
): Promise<Stripe.PaymentIntent> {
  const stripe = await stripeClient(secretKey, endpoint);
  try {
    return await stripe.paymentIntents.retrieve(reference);
  } catch (error) {
    const { errors } = await stripeSdk();
    if (error instanceof errors.StripeError) throw new ProviderUnavailable(error.message);
    throw error;
  }
}

/**
 * The `stripe` provider: one PaymentIntent per checkout, amount and payment attempt (Stripe's idempotency key names
 * them, so a retry after a lost answer finds the same intent), confirmed with the shopper's PaymentMethod id and captured with it
 * (automatic capture); the extra step is whatever Stripe.js does with the intent's client_secret, after which the
 * intent is read back. Refunds go through Stripe's Refunds API keyed by the API's refund id.
 */
export function stripeProvider(secretKey: string | null, endpoint: StripeEndpoint): PaymentProvider {
  return {
    name: 'stripe',
    createPayment: async (request) => {
      if (!request.paymentMethod) {
        throw invalidField(
          'payment.payment_method',
          'The stripe provider needs payment.payment_method (a Stripe PaymentMethod id, pm_...).',
        );
      }
      const stripe = await stripeClient(secretKey, endpoint);
      return calling(async () => {
        const created = await stripe.paymentIntents.create(
          {
            amount: request.amount,
            currency: request.currency.toLowerCase(),
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            metadata: { checkout_id: request.checkoutId, project_id: request.projectId ?? '' },
          },
          {
            idempotencyKey: `${request.checkoutId}:${request.currency}:${request.amount}:${request.paymentMethod}:${request.attempt ?? ''}`,
          },
        );
        if (created.status !== 'requires_payment_method' && created.status !== 'requires_confirmation') return created;
        return stripe.paymentIntents.confirm(created.id, { payment_method: request.paymentMethod });
      });
    },
    confirmPayment: async (reference) => {
      const stripe = await stripeClient(secretKey, endpoint);
      return calling(() => stripe.paymentIntents.retrieve(reference));
    },
    refundPayment: async (request) => {
      const stripe = await stripeClient(secretKey, endpoint);
      return refunding(() =>
        stripe.refunds.create(
          { payment_intent: request.reference, amount: request.amount, metadata: request.metadata },
          { idempotencyKey: `refund:${request.idempotencyKey}` },
        ),
      );
    },
    cancelPayment: async (reference) => {
      const stripe = await stripeClient(secretKey, endpoint);
      try {
        await stripe.paymentIntents.cancel(reference);
        return true;
      } catch (error) {
        const { errors } = await stripeSdk();
        // Succeeded or canceled meanwhile (payment_intent_unexpected_state): the caller reads it back.
        if (error instanceof errors.StripeInvalidRequestError) return false;
        if (error instanceof errors.StripeError) throw new ProviderUnavailable(error.message);
        throw error;
      }
    },
  };
}
