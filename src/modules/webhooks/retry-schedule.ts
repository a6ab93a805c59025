const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The waits before attempts 2, 3, 4 and 5 (5 minutes, 30 minutes, 2 hours, 8 hours), each after the failed attempt
 * before it; attempt 1 is immediate.
 */
export const RETRY_DELAYS_MS = [5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR] as const;

/** Automatic attempts per delivery; after the last one fails the delivery is abandoned. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

// Up to 10 % is added to every wait, never taken off: deliveries that failed together (a receiver that
// went down) come back spread over a window instead of all at the same instant.
const JITTER = 0.1;

/**
 * When the attempt after attempt number `attempt` (1-based, counting redeliveries) is due, given that it
 * failed at `failedAt`; null when no automatic attempt follows (the delivery is abandoned). `random` is
 * in [0, 1) and picks the jitter.
 */
export function nextAttemptAt(attempt: number, failedAt: Date, random: number = Math.random()): Date | null {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1), got ${random}`);
  if (attempt >= MAX_ATTEMPTS) return null;
  const wait = RETRY_DELAYS_MS[attempt - 1];
  return new Date(failedAt.getTime() + Math.floor(wait * (1 + JITTER * random)));
}
