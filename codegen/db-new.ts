/**
 * `npm run db:new -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that
 * takes the schema of the latest migration to the current prisma/schema.prisma, plus a snapshot of that
 * schema for the next diff. Uses DATABASE_URL, or the embedded development database.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { MIGRATIONS_DIR, readMigrations } from '../src/db/migrate.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { diffDatamodels } from './schema-engine.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('Usage: npm run db:new -- <name>   (lowercase letters, digits and underscores)');
  process.exit(2);
}

const config = loadConfig();
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres({ dir: config.dataDir, persistent: true, whenInUse: 'reuse' });
try {
  const latest = readMigrations().at(-1);
  const snapshotPath = latest && path.join(MIGRATIONS_DIR, latest.name, 'schema.prisma');
  const previous = snapshotPath && existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : null;
  if (latest && previous === null) throw new Error(`${latest.name} has no schema.prisma snapshot to diff from.`);
  const current = readFileSync(path.resolve(import.meta.dirname, '../prisma/schema.prisma'), 'utf8');
  const sql = await diffDatamodels(config.databaseUrl ?? embedded!.url, previous, current);
  if (sql.trim() === '') {
    console.log('schema.prisma matches the latest migration; nothing to write.');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    writeFileSync(path.join(dir, 'schema.prisma'), current);
    writeFileSync(path.join(MIGRATIONS_DIR, 'migration_lock.toml'), 'provider = "postgresql"\n');
    console.log(
      `Wrote ${path.relative(process.cwd(), dir)}/migration.sql; review it, add what Prisma cannot express (partial or expression indexes), then commit.`,
    );
  }
} finally {
  await embedded?.stop();
}
process.exit(0);
