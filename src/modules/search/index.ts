/** What other areas may use of search. */
export { reindexProducts, reindexCollectionProducts } from './search-index.js';
export { flushSearchLog, searchLogCounts } from './search-log.js';
