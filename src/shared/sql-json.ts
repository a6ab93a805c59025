/**
 * SQL expressions that make PostgreSQL write a resource's JSON text as the mappers show it, so a list page can
 * send rows' texts without building and encoding objects in the process (see listPage's `json`). The texts are
 * compact like JSON.stringify's (row_to_json, array_to_json), with keys in the order given; embedded jsonb
 * values keep PostgreSQL's own spacing. A list that uses them holds them equal to its mappers in a test.
 */

/** One key of a JSON object and the SQL expression of its value (over the statement's relations). */
export type JsonField = readonly [key: string, expression: string];

const selectOf = (fields: readonly JsonField[]) =>
  fields.map(([key, expression]) => `${expression} AS "${key}"`).join(', ');

/** A timestamptz column as Date.prototype.toISOString shows it: UTC, milliseconds, `Z`. */
export const isoTimeSql = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A JSON object (type json) with `fields` in order; nulls stay as `null` members. */
export function jsonObjectSql(fields: readonly JsonField[]): string {
  return `(SELECT row_to_json(item) FROM (SELECT ${selectOf(fields)}) item)`;
}

/**
 * A JSON array (type json) of one object per row of `from` (a FROM clause with its WHERE), each with `fields`
 * in order, sorted by `orderBy` (over the object's keys, e.g. `item.position, item.id COLLATE "C"`); `[]` for no rows.
 */
export function jsonArraySql(fields: readonly JsonField[], from: string, orderBy: string): string {
  return `COALESCE((SELECT array_to_json(array_agg(item ORDER BY ${orderBy})) FROM (SELECT ${selectOf(fields)} FROM ${from}) item), '[]'::json)`;
}

/**
 * A statement reading many parents' arrays in one scan: per distinct `key` (one of `fields`' keys) among the rows
 * of `from`, that value as "key" and the JSON array of its rows' objects as jsonArraySql writes one, as "json".
 */
export function jsonArraysByKeySql(fields: readonly JsonField[], key: string, from: string, orderBy: string): string {
  if (!fields.some(([name]) => name === key)) throw new Error(`The key ${key} must be one of the objects' fields.`);
  return `SELECT item."${key}" AS "key", array_to_json(array_agg(item ORDER BY ${orderBy})) AS "json" FROM (SELECT ${selectOf(fields)} FROM ${from}) item GROUP BY item."${key}"`;
}
