/** What other areas may use of inventory: stock locations, row locks on variants, totals and inventory.low. */
export { inventoryHandlers } from './inventory.handlers.js';
export { lockVariants, stockLocation, syncVariantTotals } from './inventory.service.js';
export { deductStock, type StockDemand } from './deduct-stock.js';
