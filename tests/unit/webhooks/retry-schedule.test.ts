import { describe, expect, test } from '@jest/globals';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, nextAttemptAt } from '../../../src/modules/webhooks/retry-schedule.js';

// The schedule is a pure function of the attempt number, the moment it failed and a random draw, so a
// "clock" here is just the instant passed in.
const failedAt = new Date('2026-11-21T09:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('nextAttemptAt (attempt 1 immediately, 2 after 5 minutes, 3 after 30 minutes, 4 after 2 hours, 5 after 8 hours, then abandoned)', () => {
  test.each([
    [1, 5 * MINUTE],
    [2, 30 * MINUTE],
    [3, 2 * HOUR],
    [4, 8 * HOUR],
  ])('after attempt %i fails, the next is due %i ms later (no jitter drawn)', (attempt, wait) => {
    expect(nextAttemptAt(attempt, failedAt, 0)!.getTime() - failedAt.getTime()).toBe(wait);
  });

  test('after the fifth attempt (or a redelivery beyond it) nothing follows: the delivery is abandoned', () => {
    expect(MAX_ATTEMPTS).toBe(5);
    expect(nextAttemptAt(5, failedAt, 0.5)).toBeNull();
    expect(nextAttemptAt(7, failedAt, 0.5)).toBeNull();
  });

  test('walking a delivery through every failure gives the whole schedule, 10 h 35 min from the first attempt', () => {
    let at = failedAt;
    const due: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt(attempt, at, 0);
      if (!next) break;
      due.push(next.getTime() - failedAt.getTime());
      at = next; // the retry fails the instant it is made
    }
    expect(due).toEqual([5 * MINUTE, 35 * MINUTE, 2 * HOUR + 35 * MINUTE, 10 * HOUR + 35 * MINUTE]);
  });

  test('jitter only ever adds, at most 10 % of the wait', () => {
    for (const [index, wait] of RETRY_DELAYS_MS.entries()) {
      const latest = nextAttemptAt(index + 1, failedAt, 0.999999)!.getTime() - failedAt.getTime();
      expect(latest).toBeGreaterThan(wait);
      expect(latest).toBeLessThanOrEqual(wait * 1.1);
    }
  });

  test('deliveries that failed at the same instant are spread over the jitter window, not retried together', () => {
    const retries = Array.from({ length: 200 }, (_, i) => nextAttemptAt(1, failedAt, i / 200)!.getTime());
    expect(new Set(retries).size).toBe(200);
    const spread = Math.max(...retries) - Math.min(...retries);
    expect(spread).toBeGreaterThan(0.09 * 5 * MINUTE); // about 30 s for the 5-minute retry
  });

  test('refuses an attempt number below 1 and a random draw outside [0, 1)', () => {
    expect(() => nextAttemptAt(0, failedAt, 0)).toThrow(RangeError);
    expect(() => nextAttemptAt(1, failedAt, 1)).toThrow(RangeError);
  });
});
