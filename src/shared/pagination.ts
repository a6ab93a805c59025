import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { types } from 'node:util';
import { invalidField } from './errors.js';

export type SortKind = 'date' | 'string' | 'number';
export type SortOrder = 'asc' | 'desc';

export interface PageParams {
  limit?: number;
  cursor?: string;
  order?: SortOrder;
}

export interface Pagination {
  cursor: string | null;
  has_more: boolean;
  total: number;
}

/** How a list is ordered: non-null columns (Prisma field names) in sort order, one direction; id breaks ties. */
export interface KeysetOrder {
  keys: Array<{ field: string; kind: SortKind }>;
  order: SortOrder;
}

type KeyValue = string | number;

/** What a keyset page reads: rows after `from` (the previous page's last key, typed; none on a first page) in `keys` order, `take` of them. */
export interface PageFetch {
  /** The same bound as a Prisma where (see afterKey). */
  after: Record<string, unknown> | undefined;
  /** The key values the page starts after, one per key (Dates for date keys), id last. */
  from: Array<string | number | Date> | undefined;
  /** The sort keys, id last. */
  keys: KeysetOrder['keys'];
  order: SortOrder;
  orderBy: Record<string, SortOrder>[];
  take: number;
}

interface PageOf<Row> {
  rows: Row[];
  pagination: Pagination;
}

/**
 * One page of a keyset-paginated list. `shape` is everything that decides which rows match and how
 * they are ordered (filters, sort, order): a cursor only continues the list it came from.
 * Cursors are signed with the project's secret, so a modified cursor answers 400 with field `cursor`.
 */
export async function paginate<Row extends { id: string }>(options: {
  secret: string;
  params: PageParams;
  orderBy: KeysetOrder;
  shape: unknown;
  count: () => PromiseLike<number>;
  fetch: (args: PageFetch) => PromiseLike<Row[]>;
  /** How many of the page's leading rows to answer (at least 1): fewer than the limit ends the page early, with a cursor. */
  keep?: (rows: Row[]) => number;
}): Promise<PageOf<Row>> {
  const { secret, params, orderBy, shape } = options;
  const limit = params.limit ?? 25;
  const keys = [...orderBy.keys, { field: 'id', kind: 'string' as const }];
  const fingerprint = shapeFingerprint({ shape, orderBy });
  const from = params.cursor ? decodeCursor(secret, fingerprint, params.cursor) : undefined;
  const typed = from ? typedKey(keys, from.key) : undefined;
  const [total, fetched] = await Promise.all([
    from?.total ?? options.count(),
    options.fetch({
      after: typed ? afterKey(keys, orderBy.order, typed) : undefined,
      from: typed,
      keys,
      order: orderBy.order,
      orderBy: keys.map((key) => ({ [key.field]: orderBy.order })),
      take: limit + 1,
    }),
  ]);
  const full = fetched.length > limit ? fetched.slice(0, limit) : fetched;
  const kept = options.keep && full.length > 0 ? Math.max(1, Math.min(options.keep(full), full.length)) : full.length;
  const hasMore = fetched.length > limit || kept < full.length;
  const rows = kept < full.length ? full.slice(0, kept) : full;
  const last = rows.at(-1) as Record<string, unknown> | undefined;
  const cursor =
    hasMore && last
      ? encodeCursor(
          secret,
          fingerprint,
          keys.map((key) => encodeKey(last[key.field])),
          total,
        )
      : null;
  return { rows, pagination: { cursor, has_more: hasMore, total } };
}

/**
 * One page of a list ordered by something no index holds (relevance): the cursor carries the offset,
 * signed like keyset cursors. Meant for search results, where rows change rank between pages anyway.
 */
export async function paginateByOffset<Row>(options: {
  secret: string;
  params: PageParams;
  shape: unknown;
  count: () => Promise<number>;
  fetch: (args: { offset: number; take: number }) => Promise<Row[]>;
}): Promise<PageOf<Row>> {
  const { secret, params, shape } = options;
  const limit = params.limit ?? 25;
  const fingerprint = shapeFingerprint({ shape, offset: true });
  const from = params.cursor ? decodeCursor(secret, fingerprint, params.cursor) : undefined;
  const offset = from ? Number(from.key[0]) : 0;
  const [total, fetched] = await Promise.all([
    from?.total ?? options.count(),
    options.fetch({ offset, take: limit + 1 }),
  ]);
  const hasMore = fetched.length > limit;
  const rows = hasMore ? fetched.slice(0, limit) : fetched;
  return {
    rows,
    pagination: {
      cursor: hasMore ? encodeCursor(secret, fingerprint, [offset + limit], total) : null,
      has_more: hasMore,
      total,
    },
  };
}

function encodeKey(value: unknown): KeyValue {
  if (types.isDate(value)) return value.toISOString(); // any realm's Date, as Prisma's may be
  if (typeof value === 'bigint') return Number(value);
  return value as KeyValue;
}

// Rows after the key: (a > va) OR (a = va AND b > vb) OR ... for ascending order, < for descending.
// Prisma cannot write the row comparison (a, b) > (va, vb), and PostgreSQL does not use the OR as an
// index bound, so deep pages would scan from the start; the redundant a >= va gives it that bound.
function afterKey(keys: KeysetOrder['keys'], order: SortOrder, typed: PageFetch['from'] & {}): Record<string, unknown> {
  const op = order === 'desc' ? 'lt' : 'gt';
  const after = {
    OR: keys.map((key, i) => ({
      AND: [...keys.slice(0, i).map((prior, j) => ({ [prior.field]: typed[j] })), { [key.field]: { [op]: typed[i] } }],
    })),
  };
  return { AND: [{ [keys[0].field]: { [`${op}e`]: typed[0] } }, after] };
}

// A cursor's key values as the columns hold them: dates back to Dates.
const typedKey = (keys: KeysetOrder['keys'], values: KeyValue[]) =>
  keys.map((key, i) => (key.kind === 'date' ? new Date(values[i]) : values[i]));

function shapeFingerprint(shape: unknown): string {
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 12);
}

function sign(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
}

// The cursor carries the total of the walk's first page, so later pages need no count: a walk reports
// the total it saw when it started.
function encodeCursor(secret: string, fingerprint: string, key: KeyValue[], total: number): string {
  const payload = Buffer.from(JSON.stringify({ f: fingerprint, k: key, t: total })).toString('base64url');
  return `${payload}.${sign(secret, payload).toString('base64url')}`;
}

function decodeCursor(secret: string, fingerprint: string, cursor: string): { key: KeyValue[]; total: number } {
  const invalid = invalidField(
    'cursor',
    'cursor is not a cursor this list returned. Pass pagination.cursor from the previous page unchanged, with the same filters and sort.',
  );
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) throw invalid;
  const expected = sign(secret, payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    f: string;
    k: KeyValue[];
    t: number;
  };
  if (decoded.f !== fingerprint) throw invalid;
  return { key: decoded.k, total: decoded.t };
}
