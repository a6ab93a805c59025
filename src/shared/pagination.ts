import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
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

/** How a list is ordered: a non-null column (Prisma field name), its kind, the direction; id breaks ties. */
export interface KeysetOrder {
  field: string;
  kind: SortKind;
  order: SortOrder;
}

type KeyValue = string | number;

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
  count: () => Promise<number>;
  fetch: (args: { after: Record<string, unknown> | undefined; orderBy: Record<string, SortOrder>[]; take: number }) => Promise<Row[]>;
}): Promise<{ rows: Row[]; pagination: Pagination }> {
  const { secret, params, orderBy, shape } = options;
  const limit = params.limit ?? 25;
  const fingerprint = shapeFingerprint({ shape, orderBy });
  const after = params.cursor ? afterKey(orderBy, decodeCursor(secret, fingerprint, params.cursor)) : undefined;
  const [total, fetched] = await Promise.all([
    options.count(),
    options.fetch({
      after,
      orderBy: orderBy.field === 'id' ? [{ id: orderBy.order }] : [{ [orderBy.field]: orderBy.order }, { id: orderBy.order }],
      take: limit + 1,
    }),
  ]);
  const hasMore = fetched.length > limit;
  const rows = hasMore ? fetched.slice(0, limit) : fetched;
  const last = rows.at(-1);
  const cursor = hasMore && last ? encodeCursor(secret, fingerprint, keyOf(last, orderBy)) : null;
  return { rows, pagination: { cursor, has_more: hasMore, total } };
}

function keyOf(row: Record<string, unknown>, orderBy: KeysetOrder): [KeyValue, string] {
  const value = row[orderBy.field];
  const encoded = value instanceof Date ? value.toISOString() : (value as KeyValue);
  return [encoded, row.id as string];
}

function afterKey(orderBy: KeysetOrder, [value, id]: [KeyValue, string]): Record<string, unknown> {
  const op = orderBy.order === 'desc' ? 'lt' : 'gt';
  if (orderBy.field === 'id') return { id: { [op]: id } };
  const typed = orderBy.kind === 'date' ? new Date(value) : value;
  return { OR: [{ [orderBy.field]: { [op]: typed } }, { [orderBy.field]: typed, id: { [op]: id } }] };
}

function shapeFingerprint(shape: unknown): string {
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 12);
}

function sign(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
}

function encodeCursor(secret: string, fingerprint: string, key: [KeyValue, string]): string {
  const payload = Buffer.from(JSON.stringify({ f: fingerprint, k: key })).toString('base64url');
  return `${payload}.${sign(secret, payload).toString('base64url')}`;
}

function decodeCursor(secret: string, fingerprint: string, cursor: string): [KeyValue, string] {
  const invalid = invalidField('cursor', 'cursor is not a cursor this list returned. Pass pagination.cursor from the previous page unchanged, with the same filters and sort.');
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) throw invalid;
  const expected = sign(secret, payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { f: string; k: [KeyValue, string] };
  if (decoded.f !== fingerprint) throw invalid;
  return decoded.k;
}
