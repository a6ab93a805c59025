/** What other areas (and the demo store) may use of price lists: the lists a customer buys from, a variant's resolved price, and making lists. */
export {
  customerPriceKeys,
  customerPricing,
  nextPriceChangeMs,
  PRICE_LIST_TABLES,
  priceFor,
  pricingForKeys,
  type CustomerPricing,
  type PricedVariant,
} from './price-lists.pricing.js';
export { createPriceList } from './price-lists.service.js';
export { setPriceListPrices } from './prices.service.js';
