/** What other areas may use of search. */
export { reindexProducts, reindexCollectionProducts } from './search-index.js';
export { flushSearchLog } from './search-log.js';
