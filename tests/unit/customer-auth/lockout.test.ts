import { describe, expect, test } from '@jest/globals';
import { lockSecondsAfter } from '../../../src/modules/customer-auth/lockout.js';

describe('lockSecondsAfter (login lockout: 5 failures lock 1 minute, 10 lock 5 minutes, 20 or more 15 minutes)', () => {
  test('the failure that reaches 5, 10 or 20 starts a lock of 1, 5 or 15 minutes', () => {
    expect(lockSecondsAfter(5)).toBe(60);
    expect(lockSecondsAfter(10)).toBe(300);
    expect(lockSecondsAfter(20)).toBe(900);
  });

  test('every failure from 20 on locks for 15 minutes', () => {
    for (const failures of [21, 22, 50, 1000]) expect(lockSecondsAfter(failures)).toBe(900);
  });

  test('failures below 5 and between the thresholds lock nothing', () => {
    for (const failures of [0, 1, 2, 3, 4, 6, 7, 8, 9, 11, 15, 19]) expect(lockSecondsAfter(failures)).toBe(0);
  });
});
