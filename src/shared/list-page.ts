import type { OperationId } from '../generated/operations.js';
import type { QueryParams } from '../http/contract.js';
import type { Ctx } from './context.js';
import { pickFields } from './fields.js';
import { paginate, type KeysetOrder, type Pagination, type SortOrder } from './pagination.js';

/** The sort values an operation's `sort` query parameter takes, from the generated query types. */
export type SortOf<O extends OperationId> = NonNullable<QueryParams<O> extends { sort?: infer S } ? S : never>;
/** For each sort value of the operation, the (non-null) columns it orders by; id breaks ties. */
export type SortColumns<O extends OperationId> = Record<SortOf<O> & string, KeysetOrder['keys']>;

/** The query parameters every cursor list shares; the rest are the list's filters. */
interface ListQuery {
  cursor?: string;
  limit?: number;
  sort?: string;
  order?: SortOrder;
  fields?: string[];
  expand?: string[];
}

/**
 * A Prisma model delegate as lists use it (`ctx.db.customer`). Rows with relations:
 * `{ findMany: (args) => ctx.db.product.findMany({ ...args, include }), count: (args) => ctx.db.product.count(args) }`.
 */
interface ListDelegate<W, Row> {
  findMany(args: { where: W; orderBy: Record<string, SortOrder>[]; take: number }): PromiseLike<Row[]>;
  count(args: { where: W }): PromiseLike<number>;
}

/**
 * One page of a cursor list as the API answers it: `{data, pagination}`, rows mapped to resources and
 * cut to `fields`. The cursor is signed with the project's secret and bound to the filters and sort
 * (everything in `query` but cursor, limit, fields and expand), so it only continues the list it came from.
 */
export async function listPage<W, Row extends { id: string }, Resource extends { id: string }, Q extends ListQuery>(
  ctx: Ctx,
  list: {
    model: ListDelegate<W, Row>;
    where: W;
    query: Q;
    sorts: Record<NonNullable<Q['sort']>, KeysetOrder['keys']>;
    defaultSort?: NonNullable<Q['sort']>;
    map: (row: Row) => Resource;
    /**
     * Cache first-page totals per filters (`caches.listTotals`, see TableVersionCache): the list's name and every table its filters
     * read, each of which must carry the table_changed trigger (see the list_totals migration).
     */
    cacheTotals?: { list: string; tables: readonly string[] };
  },
): Promise<{ data: Resource[]; pagination: Pagination }> {
  const { cursor, limit, sort, order = 'desc', fields, expand: _expand, ...filters } = list.query;
  const sortBy = (sort ?? list.defaultSort ?? 'created_at') as NonNullable<Q['sort']>;
  const { rows, pagination } = await paginate<Row>({
    secret: ctx.project.signingSecret,
    params: { cursor, limit, order },
    orderBy: { keys: list.sorts[sortBy], order },
    shape: { filters, sort: sortBy },
    count: async () => {
      const count = async () => list.model.count({ where: list.where });
      if (!list.cacheTotals || !ctx.caches) return count();
      return ctx.caches.listTotals.get(
        ctx.project.id,
        `${list.cacheTotals.list}|${JSON.stringify(filters)}`,
        list.cacheTotals.tables,
        count,
      );
    },
    fetch: async ({ after, orderBy, take }) =>
      list.model.findMany({ where: (after ? { AND: [list.where, after] } : list.where) as W, orderBy, take }),
  });
  return { data: rows.map((row) => pickFields(list.map(row), fields)), pagination };
}
