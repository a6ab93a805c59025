/** What other areas (and the demo catalog) may use of the catalog. */
export { findVariant } from './variants.service.js';
export { createProduct, findProduct } from './products.service.js';
export { addProducts, createCollection } from './collections.service.js';
export { toVariantResource, toProductResource } from './catalog.mappers.js';
export { VARIANT_COLUMNS } from './products.statements.js';
export { lowestCustomerPrices, pricedCustomer } from './customer-prices.js';
