/** What other areas may use of inventory: stock locations, row locks on variants, totals and inventory.low; deducting and restocking an order's units; adding a purchase order's received units; reserving a sent draft's units and releasing them; setting levels (the demo catalog). */
export { lockVariants, setInventoryLevels, stockLocation, syncVariantTotals } from './inventory.service.js';
export {
  deductStock,
  deductionOn,
  draftStockSteps,
  type DraftStock,
  type StockAllocation,
  type StockDemand,
} from './deduct-stock.js';
export { receiveUnits, restockUnits } from './restock.js';
export {
  holdStock,
  releaseCheckoutHold,
  releaseReservations,
  reserveStock,
  type ReleaseReason,
  type StockHolder,
} from './reservations.js';
