import { AppError, invalidField } from '../../shared/errors.js';
import type { PaymentProvider } from './payment-provider.types.js';
import { stripeProvider, type StripeEndpoint } from './stripe-provider.js';

export type { PaymentOutcome, PaymentProvider, PaymentRequest, ProviderName } from './payment-provider.types.js';

/** Takes no payment: the order is created pending and paid later (POST /v1/orders/{id}/pay). */
const manualProvider: PaymentProvider = {
  name: 'manual',
  createPayment: async () => ({ status: 'pending', reference: null }),
  confirmPayment: async () => {
    throw new AppError('invalid_request', 'The manual provider has no payment step to confirm.');
  },
};

/** The test provider's tokens and what each does (openapi.yaml, completeCheckout). */
export const TEST_TOKENS = {
  tok_test_success: 'succeeded',
  tok_test_decline: 'declined',
  tok_test_requires_action: 'requires_action',
} as const;

/** The test provider's reference of a checkout's payment: deterministic, so a retry names the same payment. */
const testReference = (checkoutId: string) => `pay_test_${checkoutId.slice('chk_'.length)}`;

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
    return { status, reference: testReference(request.checkoutId) };
  },
  confirmPayment: async (reference) => ({ status: 'succeeded', reference }),
};

/** The project's payment provider (its `payment_provider` setting). */
export function paymentProviderOf(
  project: { paymentProvider: string; stripeSecretKey?: string | null },
  stripe: StripeEndpoint = {},
): PaymentProvider {
  if (project.paymentProvider === 'stripe') return stripeProvider(project.stripeSecretKey ?? null, stripe);
  return project.paymentProvider === 'test' ? testProvider : manualProvider;
}
