/** What other areas may use of draft orders: the totals and tax rules (pure) and the project's tax setting. */
export { computeTotals, type TaxAddress, type Totals } from './totals.js';
export { MAX_AMOUNT, taxSettingsOf } from './draft-orders.write.js';
export { toStoredAddress } from './draft-orders.mappers.js';
