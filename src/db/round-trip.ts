import pg from 'pg';

/**
 * Statements sent to PostgreSQL together and answered together: one round trip for several statements of a
 * transaction whose values do not depend on each other's rows. PostgreSQL runs them one after the other, each with
 * its own snapshot as if sent one by one (under READ COMMITTED a statement sees what committed before it began, so
 * a read after a locking statement sees every write committed before the lock was granted); the first one that
 * fails ends the batch (PostgreSQL skips the rest up to the batch's Sync) and rejects it.
 */

/** One statement of a batch: its text, values and name (prepared once per connection when named). */
export interface Step<Row> {
  config: (client: pg.PoolClient) => pg.QueryConfig & { types?: unknown };
  /** Told of the batch's error, when it failed (a prepared statement renamed after a migration). */
  failed?: (error: unknown) => void;
  /** Only for typing the rows. */
  readonly row?: Row;
}

/** A transaction's BEGIN and COMMIT as steps. */
export const BEGIN: Step<never> = { config: () => ({ text: 'BEGIN' }) };
export const COMMIT: Step<never> = { config: () => ({ text: 'COMMIT' }) };

/**
 * Generic plans for the rest of the transaction, before a prepared statement PostgreSQL would otherwise plan afresh
 * on every execution: one whose generic plan its estimates keep dearer than each custom plan (ten rows assumed for
 * an unnest of a parameter where a custom plan sees two), though both are the same index scans.
 */
export const GENERIC_PLANS: Step<never> = {
  config: () => ({ text: 'SET LOCAL plan_cache_mode = force_generic_plan' }),
};

export type RowsOf<S extends readonly Step<unknown>[]> = { [K in keyof S]: S[K] extends Step<infer R> ? R[] : never };

/** The parts of node-postgres's connection a query sends its messages through (pg/lib/connection.js). */
interface Wire {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(message: { text: string; name?: string }): void;
  bind(message: { statement?: string; values?: unknown[]; valueMapper?: unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

/** The parts of node-postgres's query a batch drives (pg/lib/query.js, pg/lib/result.js). */
interface BatchQuery {
  _result: RowShape & { command: string | null };
  _accumulateRows: boolean;
  _checkForMultirow(): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}

/** What node-postgres's result makes of a row description to parse rows with: the fields, a parser per field, an empty row. */
interface RowShape {
  fields: pg.FieldDef[];
  _parsers?: unknown[];
  _prebuiltEmptyResultObject: unknown;
}

// Per connection, the shape of the rows of each named statement it has described in a batch (no fields for one
// without rows). A statement's rows keep their shape on its connection (PostgreSQL refuses to run it with another:
// 0A000), so its later runs in batches send no Describe: the server writes no row description and the client
// neither parses one nor builds its parsers again. (Single runs go through node-postgres's own query, described.)
const shapes = new WeakMap<Wire, Map<string, RowShape>>();

/** The row shapes kept for the connection `wire` (none yet on a new one). */
function shapesOn(wire: Wire): Map<string, RowShape> {
  let kept = shapes.get(wire);
  if (!kept) shapes.set(wire, (kept = new Map<string, RowShape>()));
  return kept;
}

// node-postgres's conversion of values to their text (Dates, arrays, objects as JSON), as its own queries use.
const prepareValue = (pg as unknown as { utils?: { prepareValue: unknown } }).utils?.prepareValue;

/**
 * Runs `steps` on `client` in one round trip (one Sync) and resolves to each one's rows, in order. The statements
 * a batch names are parsed once per connection, before any of them runs.
 */
export async function inOneRoundTrip<const S extends readonly Step<unknown>[]>(
  client: pg.PoolClient,
  steps: S,
): Promise<RowsOf<S>> {
  const configs = steps.map((step) => step.config(client));
  const wire = (client as unknown as { connection: Wire }).connection;
  const described = shapesOn(wire);
  const parsedHere: string[] = [];
  try {
    const results = await new Promise<pg.QueryResult[]>((resolve, reject) => {
      const query = new pg.Query({
        text: 'batch',
        types: configs.find((config) => config.types)?.types,
        callback: (error: Error | null, result: pg.QueryResult | pg.QueryResult[]) =>
          error ? reject(error) : resolve(Array.isArray(result) ? result : [result]),
      } as pg.QueryConfig);
      shapeRowsOf(query as unknown as BatchQuery, configs, described);
      // node-postgres calls prepare(connection) to send a query's messages in the extended protocol (pg/lib/query.js).
      (query as unknown as { prepare: () => void }).prepare = () => {
        for (const config of configs) {
          if (!config.name || wire.parsedStatements[config.name] || wire.submittedNamedStatements[config.name])
            continue;
          wire.parse({ text: config.text, name: config.name });
          wire.submittedNamedStatements[config.name] = config.text;
          parsedHere.push(config.name);
        }
        for (const config of configs) {
          if (!config.name) wire.parse({ text: config.text });
          wire.bind({ statement: config.name ?? '', values: config.values ?? [], valueMapper: prepareValue });
          if (!config.name || !described.has(config.name)) wire.describe({ type: 'P', name: '' });
          wire.execute({ portal: '' });
        }
        wire.sync();
      };
      (query as unknown as { requiresPreparation: () => boolean }).requiresPreparation = () => true;
      client.query(query);
    });
    if (results.length !== steps.length)
      throw new Error(`A batch of ${steps.length} statements answered ${results.length} results.`);
    // COMMIT in a transaction that had already failed answers ROLLBACK, without an error.
    if (steps.some((step, i) => step === COMMIT && results[i].command !== 'COMMIT'))
      throw new Error('The transaction was rolled back, not committed.');
    return results.map((result): unknown[] => result.rows) as RowsOf<S>;
  } catch (error) {
    for (const step of steps) step.failed?.(error);
    throw error;
  } finally {
    // Remembered as parsed as node-postgres remembers its own. Should a Parse have failed (a mistake in its text),
    // the statement's next run answers 26000 (no such statement) and is prepared again under a new name.
    for (const name of parsedHere) {
      wire.parsedStatements[name] = wire.submittedNamedStatements[name];
      delete wire.submittedNamedStatements[name];
    }
  }
}

/**
 * Makes `query` parse the rows of the batch's statements that were sent without a Describe in the shape their
 * statement's first run described (`described`), and remember the shape of the named statements described now.
 * node-postgres starts each statement's result at its row description; without one, at its first row.
 */
function shapeRowsOf(query: BatchQuery, configs: pg.QueryConfig[], described: Map<string, RowShape>): void {
  let current = 0;
  let shaped = -1;
  const handleDataRow = query.handleDataRow.bind(query);
  const handleCommandComplete = query.handleCommandComplete.bind(query);
  query.handleDataRow = (message) => {
    if (shaped !== current) {
      shaped = current;
      const name = configs[current].name;
      const known = name ? described.get(name) : undefined;
      if (query._result.command) query._checkForMultirow();
      if (known && query._result.fields.length === 0) Object.assign(query._result, known);
      query._accumulateRows = true;
    }
    handleDataRow(message);
  };
  query.handleCommandComplete = (message, connection) => {
    handleCommandComplete(message, connection);
    const name = configs[current].name;
    if (name && !described.has(name)) {
      const { fields, _parsers, _prebuiltEmptyResultObject } = query._result;
      described.set(name, { fields, _parsers, _prebuiltEmptyResultObject });
    }
    current += 1;
  };
}
