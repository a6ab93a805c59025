/** What other areas may use of price lists: the lists a customer buys from, and a variant's resolved price. */
export { customerPricing, priceFor, type CustomerPricing, type PricedVariant } from './price-lists.pricing.js';
