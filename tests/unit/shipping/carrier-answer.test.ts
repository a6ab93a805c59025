import { describe, expect, test } from '@jest/globals';
import { carrierRateId, parseCarrierAnswer } from '../../../src/modules/shipping/carrier-answer.js';

const ok = (body: unknown) => ({
  status: 200,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  truncated: false,
});
const parse = (answer: ReturnType<typeof ok>, currency = 'USD') => parseCarrierAnswer(answer, 'shz_1', currency);
const rate = (name: string, price: number, extra: Record<string, unknown> = {}) => ({
  name,
  price,
  currency: 'USD',
  ...extra,
});

describe('parseCarrierAnswer', () => {
  test('a valid answer gives carrier rates with ids and nulls for what is absent', () => {
    const result = parse(
      ok({
        rates: [
          rate('Ground', 1150),
          rate('Express', 2500, { description: 'Next day', min_delivery_days: 1, max_delivery_days: 1 }),
        ],
      }),
    );
    expect(result).toEqual({
      ok: true,
      rates: [
        {
          id: expect.stringMatching(/^carrier_[0-9a-f]{24}$/),
          name: 'Ground',
          description: null,
          price: 1150,
          currency: 'USD',
          min_delivery_days: null,
          max_delivery_days: null,
          source: 'carrier',
        },
        {
          id: expect.stringMatching(/^carrier_[0-9a-f]{24}$/),
          name: 'Express',
          description: 'Next day',
          price: 2500,
          currency: 'USD',
          min_delivery_days: 1,
          max_delivery_days: 1,
          source: 'carrier',
        },
      ],
    });
  });

  test('of more than 10 rates the first 10 are kept (an 11th broken one does not matter)', () => {
    const rates = [...Array.from({ length: 10 }, (_, i) => rate(`R${i}`, 100 * i)), { name: 'broken' }, rate('R11', 1)];
    const result = parse(ok({ rates }));
    expect(result.ok && result.rates.map((r) => r.name)).toEqual([
      'R0',
      'R1',
      'R2',
      'R3',
      'R4',
      'R5',
      'R6',
      'R7',
      'R8',
      'R9',
    ]);
  });

  test('rates in another currency are dropped (after the first 10 are taken)', () => {
    const rates = [rate('Ground', 1000), { ...rate('Euro', 900), currency: 'EUR' }];
    const result = parse(ok({ rates }));
    expect(result.ok && result.rates.map((r) => r.name)).toEqual(['Ground']);
    const euro = parse(ok({ rates }), 'EUR');
    expect(euro.ok && euro.rates.map((r) => r.name)).toEqual(['Euro']);
  });

  test('identical rates appear once; other properties are ignored', () => {
    const result = parse(
      ok({ rates: [rate('Ground', 1000, { service_code: 'GND' }), rate('Ground', 1000)], carrier: 'ACME' }),
    );
    expect(result.ok && result.rates).toHaveLength(1);
  });

  test('an empty list is a valid answer', () => {
    expect(parse(ok({ rates: [] }))).toEqual({ ok: true, rates: [] });
  });

  test.each([
    [{ status: 500, body: '{"rates":[]}', truncated: false }, 'status', 'answered HTTP 500'],
    [{ status: 302, body: '', truncated: false }, 'status', 'answered HTTP 302'],
    [{ status: 200, body: '{"rates":[', truncated: true }, 'too_large', 'the answer exceeds the size limit'],
    [ok('<html>oops</html>'), 'invalid_json', 'the answer is not JSON'],
    [ok(''), 'invalid_json', 'the answer is not JSON'],
    [ok({ data: [] }), 'invalid_shape', 'rates must be an array'],
    [ok([rate('Ground', 1)]), 'invalid_shape', 'rates must be an array'],
    [ok('null'), 'invalid_shape', 'rates must be an array'],
    [ok({ rates: [rate('Ground', 1), 'Express'] }), 'invalid_shape', 'rates[1] must be an object'],
    [
      ok({ rates: [{ price: 1, currency: 'USD' }] }),
      'invalid_shape',
      'rates[0].name must be a non-blank string of at most 255 characters',
    ],
    [
      ok({ rates: [rate('  ', 1)] }),
      'invalid_shape',
      'rates[0].name must be a non-blank string of at most 255 characters',
    ],
    [
      ok({ rates: [rate('x'.repeat(256), 1)] }),
      'invalid_shape',
      'rates[0].name must be a non-blank string of at most 255 characters',
    ],
    [
      ok({ rates: [rate('Ground', -1)] }),
      'invalid_shape',
      'rates[0].price must be an integer amount in cents, at least 0',
    ],
    [
      ok({ rates: [rate('Ground', 9.99)] }),
      'invalid_shape',
      'rates[0].price must be an integer amount in cents, at least 0',
    ],
    [
      ok({ rates: [{ name: 'Ground', price: '999', currency: 'USD' }] }),
      'invalid_shape',
      'rates[0].price must be an integer amount in cents, at least 0',
    ],
    [
      ok({ rates: [{ name: 'Ground', price: 999 }] }),
      'invalid_shape',
      'rates[0].currency must be a 3-letter currency code',
    ],
    [
      ok({ rates: [{ name: 'Ground', price: 999, currency: 'usd' }] }),
      'invalid_shape',
      'rates[0].currency must be a 3-letter currency code',
    ],
    [
      ok({ rates: [rate('Ground', 1, { description: 42 })] }),
      'invalid_shape',
      'rates[0].description must be null or a string of at most 1000 characters',
    ],
    [
      ok({ rates: [rate('Ground', 1, { min_delivery_days: -1 })] }),
      'invalid_shape',
      'rates[0].min_delivery_days must be null or an integer of at least 0',
    ],
    [
      ok({ rates: [rate('Ground', 1, { max_delivery_days: 'two' })] }),
      'invalid_shape',
      'rates[0].max_delivery_days must be null or an integer of at least 0',
    ],
  ])('%j is unusable (%s)', (answer, failure, detail) => {
    expect(parse(answer)).toEqual({ ok: false, failure, detail });
  });
});

describe('carrierRateId', () => {
  const fields = {
    name: 'Ground',
    description: null,
    price: 1150,
    currency: 'USD',
    min_delivery_days: 2,
    max_delivery_days: 4,
  };

  test('is stable for the same zone and rate and differs when either differs', () => {
    const id = carrierRateId('shz_1', fields);
    expect(id).toMatch(/^carrier_[0-9a-f]{24}$/);
    expect(carrierRateId('shz_1', { ...fields })).toBe(id);
    expect(carrierRateId('shz_2', fields)).not.toBe(id);
    expect(carrierRateId('shz_1', { ...fields, price: 1151 })).not.toBe(id);
    expect(carrierRateId('shz_1', { ...fields, max_delivery_days: null })).not.toBe(id);
  });
});
