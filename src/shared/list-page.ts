import type { OperationId } from '../generated/operations.js';
import type { QueryParams } from './contract.js';
import { isStorefront, type Ctx } from './context.js';
import { pickFields } from './fields.js';
import { Gate } from './gate.js';
import { itemsFromJson, withItemJson } from './item-json.js';
import { paginate, type KeysetOrder, type Pagination, type SortOrder } from './pagination.js';
import type { PageSource } from './sql-list.js';

/** The sort values an operation's `sort` query parameter takes, from the generated query types. */
export type SortOf<O extends OperationId> = NonNullable<QueryParams<O> extends { sort?: infer S } ? S : never>;
/** For each sort value of the operation, the (non-null) columns it orders by; id breaks ties. */
export type SortColumns<O extends OperationId> = Record<SortOf<O> & string, KeysetOrder['keys']>;

/**
 * The most a list page's `data` may take as JSON (UTF-8 bytes). A page that would pass it ends early, after
 * the rows that fit (always at least one), with `has_more` and a cursor to the next row: so every page a
 * process answers at once is bounded whatever its rows hold.
 */
export const MAX_PAGE_BYTES = 1024 * 1024;

/**
 * List pages read and built at once in this process: the rows of a page (up to `limit` + 1 of them, each as
 * large as the contract allows) are held only while its build runs, so this bounds their memory whatever
 * the number of concurrent requests. A page's build is a few queries on a pool of 10 connections: more at
 * once would mostly wait for a connection anyway.
 */
const pageBuilds = new Gate(4);

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
  list: (
    | { model: ListDelegate<W, Row>; where: W }
    // Rows read by prepared statements (sqlList): the filters are in the source.
    | { source: PageSource<Row> }
  ) & {
    query: Q;
    sorts: Record<NonNullable<Q['sort']>, KeysetOrder['keys']>;
    defaultSort?: NonNullable<Q['sort']>;
    map: (row: Row) => Resource;
    /**
     * The row's resource as JSON text when the row carries it (written by PostgreSQL, see sql-json.ts): text
     * that parses to map(row). Without `fields`, the page sends these texts and maps no row (its items are
     * parsed from them only if something reads them); with `fields`, each row is mapped and cut as usual.
     */
    json?: (row: Row) => string;
    /**
     * Cache first-page totals per filters (`caches.listTotals`, see TableVersionCache): the list's name and every table its filters
     * read, each of which must carry the table_changed trigger (see the list_totals migration).
     */
    cacheTotals?: { list: string; tables: readonly string[] };
  },
): Promise<{ data: Resource[]; pagination: Pagination }> {
  const { cursor, limit, sort, order = 'desc', fields, expand: _expand, ...filters } = list.query;
  const sortBy = (sort ?? list.defaultSort ?? 'created_at') as NonNullable<Q['sort']>;
  // Storefronts and merchants see different rows of one list: neither a cached total nor a cursor crosses over.
  const view = isStorefront(ctx) ? 'storefront' : 'merchant';
  const resources: Resource[] = [];
  const texts: string[] = [];
  const asText = fields ? undefined : list.json;
  const source: PageSource<Row> =
    'source' in list
      ? list.source
      : {
          count: () => list.model.count({ where: list.where }),
          fetch: ({ after, orderBy, take }) =>
            list.model.findMany({ where: (after ? { AND: [list.where, after] } : list.where) as W, orderBy, take }),
        };
  const { rows, pagination } = await pageBuilds.run(() =>
    paginate<Row>({
      secret: ctx.project.signingSecret,
      params: { cursor, limit, order },
      orderBy: { keys: list.sorts[sortBy], order },
      shape: { filters, sort: sortBy, view },
      count: async () => {
        const count = async () => source.count();
        if (!list.cacheTotals || !ctx.caches) return count();
        return ctx.caches.listTotals.get(
          ctx.project.id,
          `${list.cacheTotals.list}|${view}|${JSON.stringify(filters)}`,
          list.cacheTotals.tables,
          count,
        );
      },
      fetch: (args) => source.fetch(args),
      keep: (fetched) => {
        let bytes = 2; // the array's brackets
        for (const row of fetched) {
          const resource = asText ? undefined : pickFields(list.map(row), fields);
          const text = asText ? asText(row) : JSON.stringify(resource);
          bytes += Buffer.byteLength(text) + (texts.length > 0 ? 1 : 0);
          if (bytes > MAX_PAGE_BYTES && texts.length > 0) break;
          if (resource) resources.push(resource);
          texts.push(text);
        }
        return texts.length;
      },
    }),
  );
  // The answer is sent from the texts measured here (see item-json.ts), not encoded again.
  const sent = texts.slice(0, rows.length);
  return { data: asText ? itemsFromJson(sent) : withItemJson(resources.slice(0, rows.length), sent), pagination };
}
