/** What other areas may use of the catalog. */
export { catalogHandlers } from './catalog.handlers.js';
export { findVariant } from './variants.service.js';
export { findProduct } from './products.service.js';
export { toVariantResource, toProductResource } from './catalog.mappers.js';
