import { AppError, invalidField } from '../../shared/errors.js';
import type { PaymentProvider } from './payment-provider.types.js';
import { stripeProvider, type StripeEndpoint } from './stripe-provider.js';

/** Takes no payment: the order is created pending and paid later (POST /v1/orders/{id}/pay); refunds are recorded. */
const manualProvider: PaymentProvider = {
  name: 'manual',
  createPayment: async () => ({ status: 'pending', reference: null }),
  confirmPayment: async () => {
    throw new AppError('invalid_request', 'The manual provider has no payment step to confirm.');
  },
  // The merchant returned the money outside the API (bank transfer, cash): the refund is recorded as done.
  refundPayment: async () => ({ status: 'succeeded', reference: null }),
  cancelPayment: async () => true,
};

/** The test provider's tokens and what each does (openapi.yaml, completeCheckout; docs/payments.md). */
export const TEST_TOKENS = {
  tok_test_success: 'succeeded',
  tok_test_decline: 'declined',
  tok_test_requires_action: 'requires_action',
  /** Pays like tok_test_success; every refund of the payment then fails (refund.failed). */
  tok_test_refund_fails: 'succeeded',
} as const;

/** What a test payment's reference starts with when its refunds fail (tok_test_refund_fails). */
const REFUSING_REFUNDS = 'pay_test_refund_fails_';

/** The test provider's reference of a checkout's payment: deterministic, so a retry names the same payment. */
const testReference = (checkoutId: string, token: string) =>
  `${token === 'tok_test_refund_fails' ? REFUSING_REFUNDS : 'pay_test_'}${checkoutId.slice('chk_'.length)}`;

/** Deterministic outcomes chosen by the token, so storefronts can exercise every branch without a real provider. */
const testProvider: PaymentProvider = {
  name: 'test',
  createPayment: async (request) => {
    const status = request.token === undefined ? undefined : TEST_TOKENS[request.token as keyof typeof TEST_TOKENS];
    if (!status) {
      throw invalidField(
        'payment.token',
        `The test provider takes payment.token ${Object.keys(TEST_TOKENS).join(', ')}${request.token === undefined ? '' : `, not ${request.token}`}.`,
      );
    }
    return { status, reference: testReference(request.checkoutId, request.token!) };
  },
  confirmPayment: async (reference) => ({ status: 'succeeded', reference }),
  refundPayment: async (request) => {
    const reference = `re_test_${request.idempotencyKey.replace(/^[a-z]+_/, '')}`;
    if (request.reference.startsWith(REFUSING_REFUNDS)) {
      return {
        status: 'failed',
        reference,
        failureReason: 'The test payment was taken with tok_test_refund_fails, whose refunds always fail.',
      };
    }
    return { status: 'succeeded', reference };
  },
  cancelPayment: async () => true,
};

/** The project's payment provider (its `payment_provider` setting). */
export function paymentProviderOf(
  project: { paymentProvider: string; stripeSecretKey?: string | null },
  stripe: StripeEndpoint = {},
): PaymentProvider {
  return providerNamed(project.paymentProvider, project, stripe);
}

/**
 * The provider called `name` with the project's credentials: a refund goes back through the provider that took the
 * payment, even when the project has chosen another since.
 */
export function providerNamed(
  name: string,
  project: { stripeSecretKey?: string | null },
  stripe: StripeEndpoint = {},
): PaymentProvider {
  if (name === 'stripe') return stripeProvider(project.stripeSecretKey ?? null, stripe);
  return name === 'test' ? testProvider : manualProvider;
}
