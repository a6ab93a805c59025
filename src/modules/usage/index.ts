/** Per-project request limits and usage warnings. */
export { RateLimiter, type RateDecision } from './rate-limiter.js';
export { recordUsageWarnings } from './usage-warnings.js';
export { secondsUntil } from './windows.js';
