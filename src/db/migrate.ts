import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../prisma/migrations');
/**
 * The schema.prisma that the committed migrations produce, kept by `npm run db:new` as the starting point of
 * its next diff. A file beside the migration directories, so neither this runner nor Prisma reads it as one.
 */
export const SCHEMA_SNAPSHOT_PATH = path.join(MIGRATIONS_DIR, 'schema.snapshot.prisma');
// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_ID = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The committed migrations (the directories holding a migration.sql), oldest first. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations, each in its own transaction, recording them in Prisma's
 * `_prisma_migrations` table. Safe to run from several processes at once: a second connection holds a
 * transaction-scoped advisory lock for the whole run, so the first process to take it applies every pending
 * migration and the others then find them applied; being transaction-scoped, the lock holds through a
 * transaction-mode pooler too (PgBouncer). Fails when an applied migration was edited afterwards. Returns the
 * names applied.
 */
export async function migrate(url: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const lock = new pg.Client({ connectionString: url });
  const client = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('BEGIN');
    await lock.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await client.connect();
    return await applyPending(client, dir);
  } finally {
    await client.end().catch(() => {});
    await lock.query('ROLLBACK').catch(() => {}); // ends the transaction, releasing the lock
    await lock.end().catch(() => {});
  }
}

/** Applies the migrations of `dir` not recorded yet, each in a transaction of its own; returns their names. */
async function applyPending(client: pg.Client, dir: string): Promise<string[]> {
  /** Runs `work` in a transaction; rolled back when it throws. */
  const inTransaction = async <T>(work: () => Promise<T>): Promise<T> => {
    await client.query('BEGIN');
    try {
      const result = await work();
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  };
  await inTransaction(() =>
    client.query(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`),
  );
  const done: string[] = [];
  for (const migration of readMigrations(dir)) {
    const applied = await inTransaction(async () => {
      const recorded = await client.query<{ checksum: string }>(
        `SELECT checksum FROM "_prisma_migrations"
           WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        [migration.name],
      );
      if (recorded.rows.length > 0) {
        if (recorded.rows[0].checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was edited after it was applied; add a new migration instead.`);
        }
        return false;
      }
      try {
        await client.query(migration.sql);
      } catch (error) {
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      return true;
    });
    if (applied) done.push(migration.name);
  }
  return done;
}
