import type pg from 'pg';
import { preparedStatement, selectList, type Columns, type Queryable } from '../../db/prepared.js';
import type { storeEventRow } from './store-events.recorder.js';

type EventRow = ReturnType<typeof storeEventRow>;

const EVENT_COLUMNS: Columns<EventRow> = {
  id: 'id',
  projectId: 'project_id',
  type: 'type',
  resourceType: 'resource_type',
  resourceId: 'resource_id',
  actorType: 'actor_type',
  actorId: 'actor_id',
  summary: 'summary',
  metadata: 'metadata',
};

/**
 * A prepared INSERT of one row into `table` with its store event in the same statement: atomic without a
 * transaction, one round trip instead of four (BEGIN, row, event, COMMIT). For writes that record an event no
 * subscriber listens to (eventHasSubscribers false); otherwise use recordEvent in a transaction. Resolves to
 * the row's `returning` fields; `json` names the fields stored as json/jsonb (sent as JSON text). Row and
 * event get the same `created_at`.
 */
export function insertWithEvent<Insert extends object, Row>(
  name: string,
  table: string,
  insert: Columns<Insert>,
  returning: Columns<Row>,
  json: ReadonlyArray<keyof Insert>,
): (pool: pg.Pool, row: Insert, event: EventRow, at: Date) => Promise<Row> {
  const rowFields = Object.keys(insert) as Array<keyof Insert>;
  const eventFields = Object.keys(EVENT_COLUMNS) as Array<keyof EventRow>;
  const rowColumns = rowFields.map((field) => `"${insert[field]}"`).join(', ');
  const eventColumns = eventFields.map((field) => `"${EVENT_COLUMNS[field]}"`).join(', ');
  const placeholders = (count: number, from: number) =>
    Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
  const at = rowFields.length + eventFields.length + 1;
  const statement = preparedStatement<Row>(
    name,
    `WITH created AS (
       INSERT INTO "${table}" (${rowColumns}, "created_at") VALUES (${placeholders(rowFields.length, 1)}, $${at}) RETURNING ${selectList(returning)}
     ), event AS (
       INSERT INTO store_events (${eventColumns}, "created_at") SELECT ${placeholders(eventFields.length, rowFields.length + 1)}, $${at} FROM created
     )
     SELECT * FROM created`,
  );
  const jsonFields = new Set<keyof Insert>(json);
  return async (pool, row, event, createdAt) => {
    const values = [
      ...rowFields.map((field) => (jsonFields.has(field) ? JSON.stringify(row[field]) : row[field])),
      ...eventFields.map((field) => (field === 'metadata' ? JSON.stringify(event.metadata) : event[field])),
      createdAt,
    ];
    const [created] = await statement(pool, values);
    return created;
  };
}

const insertEventRows = preparedStatement(
  'store_events_insert_rows',
  `INSERT INTO store_events (${Object.values(EVENT_COLUMNS)
    .map((column) => `"${column}"`)
    .join(', ')}, "created_at")
   SELECT *, $${Object.keys(EVENT_COLUMNS).length + 1}::timestamptz FROM unnest(${Object.keys(EVENT_COLUMNS)
     .map((field, i) => `$${i + 1}::${field === 'metadata' ? 'jsonb' : 'text'}[]`)
     .join(', ')})`,
);

const eventValues = (rows: EventRow[], at: Date) => {
  const fields = Object.keys(EVENT_COLUMNS) as Array<keyof EventRow>;
  return [
    ...fields.map((field) => rows.map((row) => (field === 'metadata' ? JSON.stringify(row.metadata) : row[field]))),
    at,
  ];
};

/**
 * Inserts store events in one prepared statement, all created at `at`, on a pool or a connection in its own
 * transaction; for events no subscriber listens to (otherwise recordEvent in a transaction).
 */
export async function insertEvents(pool: Queryable, rows: EventRow[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  await insertEventRows(pool, eventValues(rows, at));
}

/** insertEvents as steps of a batch (src/db/round-trip.ts): none for no rows. */
export const insertEventsSteps = (rows: EventRow[], at: Date) =>
  rows.length === 0 ? [] : [insertEventRows.with(eventValues(rows, at))];
