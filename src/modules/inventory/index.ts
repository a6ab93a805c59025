/** What other areas may use of inventory: stock locations, row locks on variants, totals and inventory.low; setting a level (the demo catalog). */
export { lockVariants, setInventoryLevel, stockLocation, syncVariantTotals } from './inventory.service.js';
export { deductStock, type StockDemand } from './deduct-stock.js';
