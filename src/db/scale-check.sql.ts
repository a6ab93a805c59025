/** The catalog reads of the distribution-readiness check (src/db/scale-check.ts). */

/** Every table of the public schema with its columns and whether it has statement or row triggers of its own. */
export const TABLES = `
  SELECT c.relname AS name,
         array_agg(a.attname::text ORDER BY a.attnum) AS columns,
         coalesce((SELECT array_agg(t.tgname::text ORDER BY t.tgname) FROM pg_trigger t
                   WHERE t.tgrelid = c.oid AND NOT t.tgisinternal), '{}') AS triggers
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  WHERE c.relkind IN ('r', 'p')
  GROUP BY c.oid, c.relname
  ORDER BY c.relname`;

/**
 * Every primary key, unique constraint, unique index without a constraint, and foreign key of the public schema:
 * its table, name, kind (p, u, i, f), columns, and for a foreign key the referenced table and columns.
 */
export const CONSTRAINTS = `
  SELECT c.conrelid::regclass::text AS "table", c.conname AS name, c.contype AS kind,
         (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(num, ord)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num) AS columns,
         c.confrelid::regclass::text AS "references",
         (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(num, ord)
          JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num) AS "referencedColumns"
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
  WHERE c.contype IN ('p', 'u', 'f')
  UNION ALL
  SELECT i.indrelid::regclass::text, x.relname, 'i',
         (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, ord)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num),
         NULL, NULL
  FROM pg_index i
  JOIN pg_class x ON x.oid = i.indexrelid
  JOIN pg_namespace n ON n.oid = x.relnamespace AND n.nspname = 'public'
  WHERE i.indisunique AND NOT i.indisprimary
    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
  ORDER BY 1, 2`;
