import { describe, expect, test } from '@jest/globals';
import { checkBounds } from '../../../src/modules/shipping/rate-bounds.js';
import {
  callbackUrlProblem,
  checkedCallbackUrl,
  normalizeCountries,
} from '../../../src/modules/shipping/zone-input.js';
import { AppError } from '../../../src/shared/errors.js';

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).toBody().error;
  }
  throw new Error('expected an AppError');
};

describe('normalizeCountries', () => {
  test('upper-cases in the order given', () => {
    expect(normalizeCountries(['us', 'Ca', 'DE'])).toEqual(['US', 'CA', 'DE']);
    expect(normalizeCountries([])).toEqual([]);
  });

  test('names the first unknown code and the first repeat', () => {
    expect(failure(() => normalizeCountries(['US', 'xx', 'YY']))).toEqual({
      code: 'invalid_request',
      field: 'countries[1]',
      message: 'countries[1] is xx, which is not an ISO 3166-1 alpha-2 country code.',
    });
    expect(failure(() => normalizeCountries(['fr', 'de', 'FR']))).toMatchObject({
      field: 'countries[2]',
      message: 'countries[2] repeats FR; list each country once.',
    });
    // User-assigned and reserved codes are not countries.
    for (const code of ['XK', 'EU', 'UK', 'ZZ', 'AA'])
      expect(failure(() => normalizeCountries([code])).field).toBe('countries[0]');
  });
});

describe('callback URLs', () => {
  test.each([
    ['https://rates.carrier.example/quote', false, undefined],
    ['https://rates.carrier.example:8443/quote?x=1', false, undefined],
    ['https://93.184.215.14/quote', false, undefined],
    ['https://127.0.0.1:8443/quote', true, undefined],
    ['https://localhost/quote', false, undefined], // names are checked at call time, after DNS
    [
      'https://127.0.0.1/quote',
      false,
      'carrier_callback_url must not point to a non-public address (127.0.0.1 is loopback).',
    ],
    ['https://[::1]/quote', false, 'carrier_callback_url must not point to a non-public address (::1 is loopback).'],
    ['http://rates.carrier.example/quote', false, 'carrier_callback_url must be an https:// URL.'],
    ['not a url', false, 'carrier_callback_url is not usable: the target is not a valid absolute URL.'],
  ])('%s (private allowed: %s)', (url, allowPrivate, problem) => {
    expect(callbackUrlProblem(url, allowPrivate)).toBe(problem);
  });

  test('checkedCallbackUrl keeps null and undefined and throws 400 on the field', () => {
    expect(checkedCallbackUrl(null, false)).toBeNull();
    expect(checkedCallbackUrl(undefined, false)).toBeUndefined();
    expect(failure(() => checkedCallbackUrl('http://x.example', false)).field).toBe('carrier_callback_url');
  });
});

describe('checkBounds', () => {
  const none = {
    min_order_subtotal: null,
    max_order_subtotal: null,
    min_order_weight: null,
    max_order_weight: null,
    min_delivery_days: null,
    max_delivery_days: null,
  };

  test('min ≤ max for each pair; null bounds never conflict', () => {
    expect(() =>
      checkBounds({ ...none, min_order_subtotal: 5, max_order_subtotal: 5, min_order_weight: 9 }, new Set()),
    ).not.toThrow();
  });

  test('names the maximum when both were sent, the minimum when only it was', () => {
    const bounds = { ...none, min_order_weight: 10, max_order_weight: 9 };
    expect(failure(() => checkBounds(bounds, new Set(['min_order_weight', 'max_order_weight'])))).toEqual({
      code: 'invalid_request',
      field: 'max_order_weight',
      message: 'max_order_weight (9) must not be below min_order_weight (10).',
    });
    expect(failure(() => checkBounds(bounds, new Set(['min_order_weight'])))).toEqual({
      code: 'invalid_request',
      field: 'min_order_weight',
      message: 'min_order_weight (10) must not be above max_order_weight (9).',
    });
    expect(
      failure(() =>
        checkBounds({ ...none, min_delivery_days: 3, max_delivery_days: 2 }, new Set(['max_delivery_days'])),
      ).field,
    ).toBe('max_delivery_days');
  });
});
