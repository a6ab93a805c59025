/** What other areas may use of search. */
export { searchHandlers } from './search.handlers.js';
export { reindexProducts, reindexCollectionProducts } from './search-index.js';
export { flushSearchLog } from './search-log.js';
