import pg from 'pg';
import { keepsSessions } from './client.js';
import type { Step } from './round-trip.js';

/**
 * Named prepared statements over the pool under the Prisma client, for the few operations where Prisma's
 * client runtime is most of the cost (bench/README.md: a customer read by id runs at about half the
 * throughput through it, a create with its store event at 45 %). PostgreSQL parses and plans each statement
 * once per connection; later runs send only its name and values. Everything else stays on Prisma.
 *
 * Prepared statements live in the server session: on a pool through a transaction-mode pooler (PgBouncer's
 * transaction mode hands each statement outside a transaction to any server connection; see
 * createDatabase's `namedStatements`) they run unnamed, parsed and planned each time, with the same text,
 * values and row shapes. A statement a migration made stale is prepared again under a new name (see
 * preparedStatement).
 */

/** Where each field of `R` lives: `{ firstName: 'first_name' }`. Every field must be named. */
export type Columns<R> = { readonly [K in keyof R]-?: string };

/**
 * `"first_name" AS "firstName", ...`: a SELECT or RETURNING list that yields rows shaped like `R`; with `table`,
 * each column qualified by it (`customers."first_name"`), for statements where another relation has the name.
 */
export function selectList<R>(columns: Columns<R>, table?: string): string {
  const prefix = table ? `${table}.` : '';
  return Object.entries(columns)
    .map(([field, column]) => `${prefix}"${column as string}" AS "${field}"`)
    .join(', ');
}

// Values as Prisma's client returns them: int8 as BigInt (node-postgres gives a string); date as midnight UTC
// (node-postgres would take local midnight); timestamptz as Date, json/jsonb parsed, arrays as arrays
// (node-postgres's own parsers, which Prisma's pg adapter uses too).
const INT8 = 20;
const DATE = 1082;
const parseInt8 = (text: string) => BigInt(text);
const parseDate = (text: string) => new Date(`${text}T00:00:00.000Z`);
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format === 'binary') return pg.types.getTypeParser(oid, format) as (value: Buffer) => unknown;
    if (oid === INT8) return parseInt8;
    if (oid === DATE) return parseDate;
    return pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  }) as typeof pg.types.getTypeParser,
};

const names = new Set<string>();

/** A pool, or one connection checked out of it for a transaction (src/db/client-transaction.ts). */
export type Queryable = pg.Pool | pg.PoolClient;

/** A prepared statement (preparedStatement): `run(pool, values)` resolves to its rows. */
export type PreparedStatement<Row> = ((pool: Queryable, values: readonly unknown[]) => Promise<Row[]>) & {
  /** The statement with `values` as a step of a batch sent in one round trip (src/db/round-trip.ts). */
  with: (values: readonly unknown[]) => Step<Row>;
};

/**
 * A statement run by name on `pool`: `run(pool, values)` resolves to its rows. `name` must be unique in the
 * process and `text` fixed (PostgreSQL keeps one plan per name and connection). Errors are node-postgres's
 * (a unique violation has code 23505; connection failures are recognised by isDatabaseUnavailable).
 */
export function preparedStatement<Row>(name: string, text: string): PreparedStatement<Row> {
  if (names.has(name)) throw new Error(`Two prepared statements are named ${name}.`);
  names.add(name);
  let generation = 0;
  const config = (pool: Queryable, values: readonly unknown[]) => ({
    name: !keepsSessions(pool) ? undefined : generation === 0 ? name : `${name}_${generation}`,
    text,
    values: values as unknown[],
    types,
  });
  const run = async (pool: Queryable, values: readonly unknown[]) =>
    (await (pool as pg.Pool).query<Row & pg.QueryResultRow>(config(pool, values))).rows;
  // A migration changed what the statement returns (0A000, "cached plan must not change result type") or the
  // statement is gone (26000): nothing ran. Prepare it again under a new name, once.
  const stale = (error: unknown) => STALE_STATEMENT.has((error as { code?: string }).code ?? '');
  const statement = async (pool: Queryable, values: readonly unknown[]) => {
    try {
      return await run(pool, values);
    } catch (error) {
      if (!stale(error)) throw error;
      generation += 1;
      return run(pool, values);
    }
  };
  // In a batch, no second try: the failed statement aborted the batch's transaction.
  const step = (values: readonly unknown[]): Step<Row> => ({
    config: (client) => config(client, values),
    failed: (error) => {
      if (stale(error)) generation += 1;
    },
  });
  return Object.assign(statement, { with: step });
}

const STALE_STATEMENT = new Set(['0A000', '26000']);

/** At most this many texts per family are prepared; further ones run unnamed (parsed each time), so a family's server-side statements stay bounded. */
const FAMILY_TEXTS = 256;

/**
 * Prepared statements whose text depends on a request's shape (which filters a list got, its sort, a first or a
 * later page, a common page size): each distinct text is prepared once under `${prefix}_${n}`. Texts must be built
 * from fixed fragments with `$n` placeholders, never from a request's values (but for one of a few fixed page
 * sizes); past FAMILY_TEXTS distinct texts they run unprepared.
 */
export function preparedFamily<Row>(
  prefix: string,
): (text: string) => (pool: pg.Pool, values: readonly unknown[]) => Promise<Row[]> {
  const statements = new Map<string, (pool: pg.Pool, values: readonly unknown[]) => Promise<Row[]>>();
  const unnamed = async (pool: pg.Pool, text: string, values: readonly unknown[]) =>
    (await pool.query<Row & pg.QueryResultRow>({ text, values: values as unknown[], types })).rows;
  return (text) => {
    const known = statements.get(text);
    if (known) return known;
    if (statements.size >= FAMILY_TEXTS) return (pool, values) => unnamed(pool, text, values);
    const statement = preparedStatement<Row>(`${prefix}_${statements.size + 1}`, text);
    statements.set(text, statement);
    return statement;
  };
}
