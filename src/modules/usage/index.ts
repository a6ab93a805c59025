/** Per-project request limits, per-client budgets and usage warnings. */
export { minuteLimitOf, RateLimiter, type Lane, type RateDecision } from './rate-limiter.js';
export { clientShareOf, storefrontAddressKey, storefrontCustomerKey } from './storefront-clients.js';
export { addressBudgetKey, checkoutBudgetKey, emailBudgetKey, takeClientBudget } from './client-budget.js';
export { recordUsageWarnings } from './usage-warnings.js';
export { secondsUntil, windowsAt } from './windows.js';
