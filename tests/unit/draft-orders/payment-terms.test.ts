import { describe, expect, test } from '@jest/globals';
import { paymentDueDate, toDateString } from '../../../src/shared/payment-terms.js';

describe('paymentDueDate', () => {
  test('due_on_receipt has no due date', () => {
    expect(paymentDueDate('due_on_receipt', new Date('2026-11-22T10:00:00Z'))).toBeNull();
  });

  test.each([
    ['net_15', '2026-12-07'],
    ['net_30', '2026-12-22'],
    ['net_60', '2027-01-21'],
    ['net_90', '2027-02-20'],
  ] as const)('%s is that many days after the UTC day of issue', (terms, expected) => {
    expect(toDateString(paymentDueDate(terms, new Date('2026-11-22T23:59:59Z')))).toBe(expected);
  });

  test('counts from the UTC day, whatever the local time zone of the instant', () => {
    expect(toDateString(paymentDueDate('net_15', new Date('2026-11-22T23:30:00-05:00')))).toBe('2026-12-08');
  });

  test('crosses leap days', () => {
    expect(toDateString(paymentDueDate('net_30', new Date('2028-02-15T12:00:00Z')))).toBe('2028-03-16');
  });
});
