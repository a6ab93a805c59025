/**
 * Login lockout (openapi.yaml, `loginCustomer`): the failed attempt that brings the count to 5 locks the email
 * for 1 minute, to 10 for 5 minutes, to 20 or more for 15 minutes; counts in between lock nothing.
 */
export const LOCK_STEPS = [
  { failures: 5, seconds: 60 },
  { failures: 10, seconds: 5 * 60 },
  { failures: 20, seconds: 15 * 60 },
] as const;

/** A count left alone this long starts again at 1, so a few typos a month never add up to a lock. */
export const FAILURE_WINDOW_HOURS = 24;

/** Seconds of lock that the `failures`-th consecutive failure starts; 0 when it starts none. */
export function lockSecondsAfter(failures: number): number {
  const [first, second, last] = LOCK_STEPS;
  if (failures >= last.failures) return last.seconds;
  if (failures === second.failures) return second.seconds;
  if (failures === first.failures) return first.seconds;
  return 0;
}
