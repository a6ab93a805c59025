/** What other areas may use of discounts: a basket's reductions (checkouts, draft orders), applying a code, counting and giving back uses (orders). */
export {
  codeToApply,
  customerKeyOf,
  discountBasket,
  requireApplied,
  type BasketInput,
  type Discounted,
} from './discounts.pricing.js';
export { giveBackCodes, holdDiscounts, recordRedemptions, redeemCodes, releaseRedemptions } from './discounts.usage.js';
export { lineDiscounts, type DiscountApplicationResource } from './discounts.mappers.js';
export { allocate as allocateAmount, paidForUnits } from './money.js';
