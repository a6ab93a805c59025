import type { PageFetch } from '../../src/shared/pagination.js';

/** A first keyset page of `take` rows, newest first (created_at, then id), as listPage asks a PageSource for one. */
export const newestFirstPage = (take: number): PageFetch => ({
  after: undefined,
  from: undefined,
  keys: [
    { field: 'createdAt', kind: 'date' },
    { field: 'id', kind: 'string' },
  ],
  order: 'desc',
  orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  take,
});
