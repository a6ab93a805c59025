import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { diffDatamodels } from '../../../codegen/schema-engine.js';
import { MIGRATIONS_DIR, SCHEMA_SNAPSHOT_PATH, migrate, readMigrations } from '../../../src/db/migrate.js';
import { createTestDatabase } from '../../setup/database.js';

const SCHEMA = readFileSync(path.resolve(import.meta.dirname, '../../../prisma/schema.prisma'), 'utf8');

type Database = Awaited<ReturnType<typeof createTestDatabase>>;
const databases: Database[] = [];
async function emptyDatabase(): Promise<Database> {
  const database = await createTestDatabase();
  databases.push(database);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  await client.end();
  return database;
}
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The parts of a database's schema that schema.prisma decides. */
async function catalog(url: string) {
  const columns = await query<Record<string, string>>(
    url,
    `
    SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default
    FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
    ORDER BY table_name, column_name`,
  );
  const constraints = await query<Record<string, string>>(
    url,
    `
    SELECT c.conrelid::regclass::text AS table_name, c.conname, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
    WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations' AND c.contype IN ('p', 'f', 'u', 'c')
    ORDER BY 1, 2`,
  );
  const indexes = await query<{ indexname: string; indexdef: string }>(
    url,
    `
    SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY indexname`,
  );
  return { columns, constraints, indexes };
}

describe('migrations and schema.prisma', () => {
  test('the committed migrations produce exactly the schema that schema.prisma describes', async () => {
    const fromMigrations = await emptyDatabase();
    await migrate(fromMigrations.url);
    const fromSchema = await emptyDatabase();
    const sql = await diffDatamodels(fromSchema.url, null, SCHEMA);
    await query(fromSchema.url, sql);

    const migrated = await catalog(fromMigrations.url);
    const described = await catalog(fromSchema.url);
    expect(migrated.columns).toEqual(described.columns);
    expect(migrated.constraints).toEqual(described.constraints);
    // Migrations may add what Prisma cannot express (partial or expression indexes), nothing else.
    const manual = migrated.indexes.filter((index) => !described.indexes.some((d) => d.indexname === index.indexname));
    for (const index of manual) expect(index.indexdef).toMatch(/ WHERE |\(\(/);
    expect(migrated.indexes.filter((index) => !manual.includes(index))).toEqual(described.indexes);
  });

  test('the migration snapshot matches schema.prisma (run npm run db:new after a schema change)', async () => {
    const snapshot = readFileSync(SCHEMA_SNAPSHOT_PATH, 'utf8');
    const database = await emptyDatabase();
    expect(await diffDatamodels(database.url, snapshot, SCHEMA)).toBe('');
  });
});

describe('migrate', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('lists only the timestamped migration directories, not the schema snapshot beside them', () => {
    expect(existsSync(path.join(dir, path.basename(SCHEMA_SNAPSHOT_PATH)))).toBe(true);
    const names = readMigrations(dir).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^\d{14}_[a-z0-9_]+$/);
  });

  test('applies each migration once and records it in _prisma_migrations with its sha256 checksum', async () => {
    const database = await emptyDatabase();
    const names = readMigrations().map((m) => m.name);
    expect(await migrate(database.url, dir)).toEqual(names);
    expect(await migrate(database.url, dir)).toEqual([]);
    const rows = await query<{ migration_name: string; checksum: string }>(
      database.url,
      'SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum })));
  });

  test('concurrent runs apply the migrations exactly once, all of them by one run', async () => {
    const database = await emptyDatabase();
    const results = await Promise.all([
      migrate(database.url, dir),
      migrate(database.url, dir),
      migrate(database.url, dir),
    ]);
    // The first run to take the lock applies every migration; the others then find them applied.
    const names = readMigrations().map((m) => m.name);
    expect(results.map((applied) => applied.length).sort((a, b) => a - b)).toEqual([0, 0, names.length]);
    expect(results.flat()).toEqual(names);
    const rows = await query<{ migration_name: string; n: number }>(
      database.url,
      'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY migration_name ORDER BY 1',
    );
    expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, n: 1 })));
  });

  test('refuses to run when an applied migration was edited', async () => {
    const database = await emptyDatabase();
    await migrate(database.url, dir);
    const first = readMigrations(dir)[0];
    writeFileSync(path.join(dir, first.name, 'migration.sql'), `${first.sql}\n-- edited\n`);
    await expect(migrate(database.url, dir)).rejects.toThrow(/was edited after it was applied/);
  });

  test('a failing migration is rolled back and not recorded', async () => {
    const database = await emptyDatabase();
    const broken = mkdtempSync(path.join(os.tmpdir(), 'broken-'));
    try {
      cpSync(MIGRATIONS_DIR, broken, { recursive: true });
      const name = '29991231000000_broken';
      cpSync(path.join(broken, readMigrations().at(-1)!.name), path.join(broken, name), { recursive: true });
      writeFileSync(
        path.join(broken, name, 'migration.sql'),
        'CREATE TABLE half_done (id int); SELECT no_such_function();',
      );
      await expect(migrate(database.url, broken)).rejects.toThrow(/29991231000000_broken failed/);
      const tables = await query(
        database.url,
        "SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'",
      );
      expect(tables).toEqual([]);
      const recorded = await query(database.url, 'SELECT 1 FROM _prisma_migrations WHERE migration_name = $1', [name]);
      expect(recorded).toEqual([]);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
