/** Per-project request limits, per-client budgets and usage warnings. */
export { RateLimiter, type Lane, type RateDecision } from './rate-limiter.js';
export { addressBudgetKey, emailBudgetKey, takeClientBudget } from './client-budget.js';
export { recordUsageWarnings } from './usage-warnings.js';
export { secondsUntil } from './windows.js';
