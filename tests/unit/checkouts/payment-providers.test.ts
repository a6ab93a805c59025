import { describe, expect, test } from '@jest/globals';
import { paymentProviderOf, TEST_TOKENS } from '../../../src/modules/checkouts/payment-providers.js';
import { renderOrderConfirmation } from '../../../src/modules/checkouts/order-confirmation.email.js';
import { AppError } from '../../../src/shared/errors.js';

const request = (token?: string) => ({
  amount: 19800,
  currency: 'EUR',
  token,
  checkoutId: 'chk_01jd5w0a2c4e6g8j0l2n4q6s8u',
});

describe('the test provider', () => {
  const provider = paymentProviderOf({ paymentProvider: 'test' });

  test('each token has its documented outcome, with a reference derived from the checkout (a retry names the same payment)', async () => {
    expect(Object.keys(TEST_TOKENS)).toEqual(['tok_test_success', 'tok_test_decline', 'tok_test_requires_action']);
    for (const [token, status] of Object.entries(TEST_TOKENS)) {
      expect(await provider.createPayment(request(token))).toEqual({
        status,
        reference: 'pay_test_01jd5w0a2c4e6g8j0l2n4q6s8u',
      });
    }
    expect(await provider.confirmPayment('pay_test_x')).toEqual({ status: 'succeeded', reference: 'pay_test_x' });
  });

  test('a missing or unknown token is 400 on payment.token', async () => {
    for (const token of [undefined, 'tok_visa']) {
      const error = await provider.createPayment(request(token)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).toBody().error).toMatchObject({ code: 'invalid_request', field: 'payment.token' });
    }
  });
});

describe('the manual provider', () => {
  test('takes nothing: the payment is pending without a reference, whatever the token', async () => {
    const provider = paymentProviderOf({ paymentProvider: 'manual' });
    expect(await provider.createPayment(request('tok_test_decline'))).toEqual({ status: 'pending', reference: null });
  });
});

describe('renderOrderConfirmation', () => {
  test("in the customer's language, with every outside value escaped in the HTML", () => {
    const mail = renderOrderConfirmation({
      language: 'fr',
      storeName: 'Acme <Outdoor>',
      orderNumber: 1002,
      currency: 'EUR',
      total: 20290,
      items: [{ title: 'Trail <b>Runner</b>', variantTitle: 'EU 42', quantity: 2 }],
    });
    expect(mail.subject).toBe('Votre commande n° 1002 chez Acme <Outdoor>');
    expect(mail.text).toContain('2 x Trail <b>Runner</b> - EU 42');
    expect(mail.text).toContain('Total: 202.90 EUR');
    expect(mail.html).toContain('Trail &lt;b&gt;Runner&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>');
  });
});
