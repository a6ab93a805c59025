/** The per-minute and per-month windows a request falls in, and when they end (UTC). */
export interface Windows {
  minuteStart: Date;
  minuteEnd: Date;
  monthStart: Date;
  monthEnd: Date;
  /** YYYY-MM */
  period: string;
}

// The windows of the current minute, computed once per minute instead of once per request.
let current: Windows | undefined;

/** The windows of the instant `now` (the same object for every instant of one minute: do not modify it). */
export function windowsAt(now: Date): Windows {
  const time = now.getTime();
  if (current && time >= current.minuteStart.getTime() && time < current.minuteEnd.getTime()) return current;
  current = computeWindows(now);
  return current;
}

function computeWindows(now: Date): Windows {
  const minuteStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return {
    minuteStart,
    minuteEnd: new Date(minuteStart.getTime() + 60_000),
    monthStart,
    monthEnd: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    period: monthStart.toISOString().slice(0, 7),
  };
}

/** Whole seconds from `now` until `end`, at least 1 (for Retry-After and X-RateLimit-Reset). */
export function secondsUntil(now: Date, end: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

/**
 * How much allowance a process leases at once: a tenth of what is left in the window, at most 1 % of
 * the limit, at least 1. Blocks shrink as the window fills, so allowance parked unused in one process
 * while others are refused stays small; the cap keeps usage counts (and usage warnings) close to what
 * was really served.
 */
export function leaseBlock(limit: number, usedSoFar: number): number {
  const left = Math.max(0, limit - usedSoFar);
  return Math.max(1, Math.min(Math.ceil(left / 10), Math.ceil(limit / 100)));
}

/** The usage.warning thresholds (percent of the quota) that `before → after` crosses. */
export function crossedThresholds(quota: number, before: number, after: number): Array<80 | 90 | 100> {
  return ([80, 90, 100] as const).filter((percent) => {
    const mark = Math.ceil((quota * percent) / 100);
    return before < mark && after >= mark;
  });
}
