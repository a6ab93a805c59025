/** What other areas may use of metafields: inlining values for expand=metafields, and removing a purged resource's values. */
export { withMetafields } from './values.load.js';
export { deleteValuesOf } from './values.service.js';
export type { MetafieldValues } from './metafields.mappers.js';
