/** What other areas may use of metafields: the handlers, and inlining values for expand=metafields. */
export { metafieldHandlers } from './metafields.handlers.js';
export { withMetafields } from './values.load.js';
export type { MetafieldValues } from './metafields.mappers.js';
