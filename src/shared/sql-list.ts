import { poolOf, type Database } from '../db/client.js';
import { preparedFamily, type Columns } from '../db/prepared.js';
import type { PageFetch } from './pagination.js';

/**
 * Cursor lists read with prepared statements (src/db/prepared.ts) instead of Prisma's client, whose runtime is most
 * of a list page's cost (bench/README.md). A list names its table and columns once; each request gives its
 * filters as conditions. The statement text depends only on which conditions, sort, page kind and (for the common
 * ones) page size a request has, so each shape is parsed once per connection and, where PostgreSQL finds its
 * generic plan as good as the custom ones, planned once.
 */

/** The rows read for a page of 10, 20, 25 (the default), 50 and 100 (the limit and one more, to know if a next page follows). */
const WRITTEN_PAGE_SIZES = new Set([11, 21, 26, 51, 101]);

/** One condition of a list's WHERE: SQL text around its values, from the `sql` tag. */
export interface SqlCondition {
  readonly parts: readonly string[];
  readonly values: readonly unknown[];
}

/** `sql\`status = ${status}\``: a condition whose values are sent as parameters, never spliced into the text. */
export const sql = (parts: TemplateStringsArray, ...values: unknown[]): SqlCondition => ({ parts: [...parts], values });

/**
 * A page's children read for the whole page at once, where a correlated subquery would scan once per row (each
 * scan's start-up costs more than a child row): `ctes`, common table expressions over `"page"` (the page's rows
 * of the list's table, all columns and `pageColumns`, named expressions over the table such as a system column),
 * and `joins` (LEFT JOINs) bringing their rows to the page's rows, which the computed expressions then read.
 */
export interface PageChildren {
  readonly pageColumns?: string;
  readonly ctes: string;
  readonly joins: string;
}

/** Rows of a page and the number of rows the filters select, as listPage reads them. */
export interface PageSource<Row> {
  count(): PromiseLike<number>;
  fetch(args: PageFetch): PromiseLike<Row[]>;
}

/** A condition's text with its values numbered from `values.length + 1`, appending them to `values`. */
function bind(condition: SqlCondition, values: unknown[]): string {
  let text = condition.parts[0];
  condition.values.forEach((value, i) => {
    values.push(value);
    text += `$${values.length}${condition.parts[i + 1]}`;
  });
  return text;
}

/**
 * A list over `table` (`columns`: each row field's column; every sort key's field must be one), read on
 * `db`'s pool by prepared statements. `filters` are ANDed (false and undefined skipped); the keyset bound is a row
 * comparison `(key, id) < (…)` (with the redundant `key <= …`, an index bound), as Prisma's path pages.
 * `computed` adds fields read by SQL expressions over the row (fixed text), so a page and what each row carries
 * come in one statement; with `children`, those expressions may read the page's children, read once per page.
 */
export function sqlList<Row, Computed extends object = Record<never, never>>(
  name: string,
  table: string,
  columns: Columns<Row>,
  computed?: Columns<Computed>,
  children?: PageChildren,
) {
  const family = preparedFamily<Row & Computed>(`list_${name}`);
  const counts = preparedFamily<{ count: number }>(`count_${name}`);
  const selected = [
    ...Object.entries(columns).map(([field, column]) => `"${table}"."${column as string}" AS "${field}"`),
    ...Object.entries(computed ?? {}).map(([field, expression]) => `${expression as string} AS "${field}"`),
  ].join(', ');
  const column = (field: string) => {
    const name = (columns as Record<string, string>)[field];
    if (!name) throw new Error(`The list ${table} has no column for the sort key ${field}.`);
    return `"${table}"."${name}"`;
  };
  return (db: Database, filters: ReadonlyArray<SqlCondition | false | undefined>): PageSource<Row & Computed> => {
    const conditions = filters.filter((filter): filter is SqlCondition => Boolean(filter));
    const where = (values: unknown[]) => conditions.map((condition) => `(${bind(condition, values)})`).join(' AND ');
    const run = async <R>(statements: typeof family | typeof counts, text: string, values: unknown[]) => {
      const pool = poolOf(db);
      // Without a pool of ours (a client not made by createDatabase), the same SQL through Prisma, unprepared.
      return (pool ? statements(text)(pool, values) : db.$queryRawUnsafe(text, ...values)) as Promise<R[]>;
    };
    return {
      count: async () => {
        const values: unknown[] = [];
        const text = `SELECT count(*)::int AS "count" FROM "${table}" WHERE ${where(values)}`;
        return (await run<{ count: number }>(counts, text, values))[0].count;
      },
      fetch: async ({ from, keys, order, take }) => {
        const values: unknown[] = [];
        let text = `FROM "${table}" WHERE ${where(values)}`;
        const direction = order === 'desc' ? 'DESC' : 'ASC';
        if (from) {
          const op = order === 'desc' ? '<' : '>';
          values.push(...from);
          const at = values.length - from.length;
          const params = from.map((_, i) => `$${at + i + 1}`);
          text += ` AND ${column(keys[0].field)} ${op}= ${params[0]} AND (${keys.map((key) => column(key.field)).join(', ')}) ${op} (${params.join(', ')})`;
        }
        const orderBy = ` ORDER BY ${keys.map((key) => `${column(key.field)} ${direction}`).join(', ')}`;
        text += orderBy;
        // A common page size is written into the text: with a parameter, PostgreSQL assumes a LIMIT of 10 % of the
        // rows, which keeps every generic plan dearer than the custom ones and so plans each page afresh (0.2-0.4
        // ms, more than the customer list's page takes to read). Other sizes stay a parameter, so a client trying
        // every size adds no statements (a product list's prepared statement holds about 100 kB in PostgreSQL).
        if (WRITTEN_PAGE_SIZES.has(take)) text += ` LIMIT ${take}`;
        else {
          values.push(take);
          text += ` LIMIT $${values.length}`;
        }
        text = children
          ? `WITH "page" AS MATERIALIZED (SELECT "${table}".*${children.pageColumns ? `, ${children.pageColumns}` : ''} ${text}), ${children.ctes} SELECT ${selected} FROM "page" AS "${table}" ${children.joins}${orderBy}`
          : `SELECT ${selected} ${text}`;
        return run<Row & Computed>(family, text, values);
      },
    };
  };
}
