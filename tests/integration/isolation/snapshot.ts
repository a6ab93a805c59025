import type { TestApp } from '../../setup/test-app.js';

/** The rows of every table of the public schema as sorted JSON texts, by table. */
export type Snapshot = Record<string, string[]>;

interface Schema {
  tables: Array<{ table_name: string; scoped: boolean }>;
  /** The tables with a `project_id` column. */
  scoped: Set<string>;
  foreignKeys: Array<{ child: string; column: string; parent: string; parent_column: string }>;
}

const schemas = new WeakMap<TestApp, Promise<Schema>>();

/**
 * The public schema's tables and single-column foreign keys, read once per app: no test changes its database's
 * schema, and reading information_schema took 70 ms of the server's time at each of some 500 snapshots a run.
 */
function schemaOf(app: TestApp): Promise<Schema> {
  let schema = schemas.get(app);
  if (!schema) schemas.set(app, (schema = readSchema(app)));
  return schema;
}

async function readSchema(app: TestApp): Promise<Schema> {
  const db = app.deps.db;
  const tables = await db.$queryRawUnsafe<Array<{ table_name: string; scoped: boolean }>>(
    `SELECT t.table_name, bool_or(c.column_name = 'project_id') AS scoped
       FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name)
      WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND t.table_name <> '_prisma_migrations'
      GROUP BY t.table_name ORDER BY t.table_name`,
  );
  const foreignKeys = await db.$queryRawUnsafe<Schema['foreignKeys']>(
    `SELECT cl.relname AS child, a.attname AS column, pl.relname AS parent, pa.attname AS parent_column
       FROM pg_constraint c
       JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class pl ON pl.oid = c.confrelid
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
      WHERE c.contype = 'f' AND cardinality(c.conkey) = 1 AND c.connamespace = 'public'::regnamespace`,
  );
  return { tables, scoped: new Set(tables.filter((t) => t.scoped).map((t) => t.table_name)), foreignKeys };
}

/**
 * Every row of every table in the public schema, except the rows of `exclude` projects, and the queued jobs whose
 * payload names one of `jobsNaming` (the protected project's ids). A row is an excluded project's when its `project_id`
 * is (for `projects`, its `id`); in a table without that column (addresses, line items, tokens, ...) when every
 * parent it references through a foreign key to a table with that column is, so a row linking one project's
 * resource to another's is kept and seen.
 */
export async function snapshot(app: TestApp, exclude: string[], jobsNaming: string[] = []): Promise<Snapshot> {
  const db = app.deps.db;
  const { tables, scoped, foreignKeys } = await schemaOf(app);
  const excluded = `ARRAY[${exclude.map((id) => `'${id.replace(/'/g, "''")}'`).join(',') || "''"}]::text[]`;
  const filterOf = (table: string): string => {
    if (table === 'projects') return `WHERE NOT (id = ANY(${excluded}))`;
    if (scoped.has(table)) return `WHERE NOT (project_id = ANY(${excluded}))`;
    const parents = foreignKeys.filter((fk) => fk.child === table && scoped.has(fk.parent));
    if (parents.length === 0) return '';
    const all = parents.map(
      (fk) =>
        `EXISTS (SELECT 1 FROM "${fk.parent}" p WHERE p."${fk.parent_column}" = t."${fk.column}" AND p.project_id = ANY(${excluded}))`,
    );
    return `WHERE NOT (${all.join(' AND ')})`;
  };
  const parts = tables.map(
    ({ table_name }) =>
      `SELECT '${table_name}' AS name, coalesce(jsonb_agg(to_jsonb(t)::text ORDER BY to_jsonb(t)::text), '[]'::jsonb) AS rows FROM "${table_name}" t ${filterOf(table_name)}`,
  );
  // Queued jobs (pg-boss) carry no project column: those whose payload names one of `jobsNaming` are taken.
  if (jobsNaming.length > 0) {
    const names = jobsNaming.map((id) => `'${id.replace(/'/g, "''")}'`).join(',');
    parts.push(
      `SELECT 'pgboss.job' AS name, coalesce(jsonb_agg(jsonb_build_object('name', j.name, 'state', j.state, 'data', j.data)::text ORDER BY j.id), '[]'::jsonb) AS rows
         FROM pgboss.job j WHERE EXISTS (SELECT 1 FROM unnest(ARRAY[${names}]::text[]) AS n WHERE strpos(j.data::text, n) > 0)`,
    );
  }
  const rows = await db.$queryRawUnsafe<Array<{ name: string; rows: string[] }>>(parts.join('\nUNION ALL\n'));
  return Object.fromEntries(rows.map(({ name, rows: texts }) => [name, texts]));
}

/** The tables whose rows differ, with the rows only in `before` (-) and only in `after` (+). */
export function diff(before: Snapshot, after: Snapshot): Record<string, { removed: string[]; added: string[] }> {
  const changes: Record<string, { removed: string[]; added: string[] }> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = new Set(before[table] ?? []);
    const b = new Set(after[table] ?? []);
    const removed = [...a].filter((row) => !b.has(row));
    const added = [...b].filter((row) => !a.has(row));
    if (removed.length || added.length) changes[table] = { removed, added };
  }
  return changes;
}
