/** What other areas may use of draft orders: the totals and tax rules (pure), the project's tax setting, and paying a sent draft through a checkout (its pay token, its completion). */
export { computeTotals, type TaxAddress, type Totals } from './totals.js';
export { MAX_AMOUNT, taxSettingsOf } from './draft-orders.write.js';
export { toStoredAddress } from './draft-orders.mappers.js';
export { completeDraftIn } from './draft-orders.complete.js';
export { countDraftUses, giveBackDraftUses } from './draft-orders.discounts.js';
export { lockDraftForPayment, payableDraft } from './draft-orders.pay.js';
