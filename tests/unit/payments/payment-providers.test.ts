import { describe, expect, test } from '@jest/globals';
import { paymentProviderOf, TEST_TOKENS } from '../../../src/modules/payments/payment-providers.js';
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
    expect(Object.keys(TEST_TOKENS)).toEqual([
      'tok_test_success',
      'tok_test_decline',
      'tok_test_requires_action',
      'tok_test_refund_fails',
    ]);
    for (const [token, status] of Object.entries(TEST_TOKENS)) {
      expect(await provider.createPayment(request(token))).toEqual({
        status,
        reference:
          token === 'tok_test_refund_fails'
            ? 'pay_test_refund_fails_01jd5w0a2c4e6g8j0l2n4q6s8u'
            : 'pay_test_01jd5w0a2c4e6g8j0l2n4q6s8u',
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

describe('refunds through the test provider', () => {
  const provider = paymentProviderOf({ paymentProvider: 'test' });
  const refund = (reference: string) =>
    provider.refundPayment({
      reference,
      amount: 500,
      currency: 'EUR',
      idempotencyKey: 'rfnd_01jd5v0a2c4e6g8j0l2n4q6s8u',
      metadata: {},
    });

  test('succeed with a reference derived from the refund, unless the payment was taken with tok_test_refund_fails', async () => {
    expect(await refund('pay_test_01jd5w0a2c4e6g8j0l2n4q6s8u')).toEqual({
      status: 'succeeded',
      reference: 're_test_01jd5v0a2c4e6g8j0l2n4q6s8u',
    });
    expect(await refund('pay_test_refund_fails_01jd5w0a2c4e6g8j0l2n4q6s8u')).toEqual({
      status: 'failed',
      reference: 're_test_01jd5v0a2c4e6g8j0l2n4q6s8u',
      failureReason: 'The test payment was taken with tok_test_refund_fails, whose refunds always fail.',
    });
  });
});

describe('refunds through the manual provider', () => {
  test('are recorded as succeeded, with no reference (the merchant returned the money elsewhere)', async () => {
    const provider = paymentProviderOf({ paymentProvider: 'manual' });
    expect(
      await provider.refundPayment({
        reference: '',
        amount: 1,
        currency: 'EUR',
        idempotencyKey: 'rfnd_x',
        metadata: {},
      }),
    ).toEqual({ status: 'succeeded', reference: null });
  });
});
