/** What other areas may use of payments: the providers (manual, test, stripe), chosen per project or by name. */
export { paymentProviderOf, providerNamed, TEST_TOKENS } from './payment-providers.js';
export {
  ProviderUnavailable,
  type PaymentOutcome,
  type PaymentProvider,
  type PaymentRequest,
  type ProviderName,
  type RefundOutcome,
  type RefundRequest,
} from './payment-provider.types.js';
export { stripeClient, stripePaymentIntent, stripeSdk, type StripeEndpoint } from './stripe-provider.js';
export { paymentSlotsFor, paymentsBusy } from './payment-slots.js';
