/**
 * `npm run db:new -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that
 * takes the schema the committed migrations produce (prisma/migrations/schema.snapshot.prisma) to the current
 * prisma/schema.prisma, then overwrites that snapshot with the current schema for the next diff. Writes nothing
 * when they agree. Uses DATABASE_URL, or the embedded development database.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { MIGRATIONS_DIR, SCHEMA_SNAPSHOT_PATH, readMigrations } from '../src/db/migrate.js';
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
  // No migrations yet: the first one creates everything.
  const hasMigrations = readMigrations().length > 0;
  const snapshotName = path.relative(process.cwd(), SCHEMA_SNAPSHOT_PATH);
  if (hasMigrations && !existsSync(SCHEMA_SNAPSHOT_PATH)) {
    throw new Error(`${snapshotName} is missing: it holds the schema the migrations produce, to diff from.`);
  }
  const previous = hasMigrations ? readFileSync(SCHEMA_SNAPSHOT_PATH, 'utf8') : null;
  const current = readFileSync(path.resolve(import.meta.dirname, '../prisma/schema.prisma'), 'utf8');
  const sql = await diffDatamodels(config.databaseUrl ?? embedded!.url, previous, current);
  if (sql.trim() === '') {
    console.log(`schema.prisma matches ${snapshotName} (the schema the migrations produce); nothing to write.`);
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    writeFileSync(SCHEMA_SNAPSHOT_PATH, current);
    writeFileSync(path.join(MIGRATIONS_DIR, 'migration_lock.toml'), 'provider = "postgresql"\n');
    console.log(
      `Wrote ${path.relative(process.cwd(), dir)}/migration.sql and updated ${snapshotName}; review it, add what Prisma cannot express (partial or expression indexes), then commit both.`,
    );
  }
} finally {
  await embedded?.stop();
}
process.exit(0);
