/** What other areas may use of search. */
export { flushSearchLog, searchLogCounts } from './search-log.js';
