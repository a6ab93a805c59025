// The test run's PostgreSQL and migrated template, shared by jest's global setup (tests/setup/global-setup.mjs) and
// the one database .ci/run keeps for all of its jest runs (tests/setup/shared-postgres.mjs). Loaded outside jest's
// module system, so TypeScript helpers come in through tsx.
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

const IN_MEMORY = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
const IN_MEMORY_PREFIX = 'commerce-test-pg-';

/**
 * Where a throwaway cluster keeps its files: in memory (a tmpfs at /dev/shm with 4 GiB free) when the machine has
 * one, else `dir`. A test run copies and drops a database of about 770 files for every test file; on a disk file
 * system (ext4) creating and deleting those files was a third of the server's CPU time (measured with perf, 2026-11-29).
 * Clusters left in memory by runs that were killed (their pid is gone) are deleted first.
 */
function throwawayDir(dir, isAlive) {
  try {
    const { type, bavail, bsize } = statfsSync(IN_MEMORY);
    if (type !== TMPFS_MAGIC || bavail * bsize < 4 * 2 ** 30) return dir;
  } catch {
    return dir;
  }
  for (const name of readdirSync(IN_MEMORY)) {
    const pid = name.startsWith(IN_MEMORY_PREFIX) ? parseInt(name.slice(IN_MEMORY_PREFIX.length), 10) : 0;
    if (pid && !isAlive(pid)) rmSync(path.join(IN_MEMORY, name), { recursive: true, force: true });
  }
  return path.join(IN_MEMORY, `${IN_MEMORY_PREFIX}${process.pid}-${path.basename(dir)}`);
}

/**
 * Starts a throwaway PostgreSQL (in memory when the machine allows, see throwawayDir, else under `dir`) with fsync,
 * synchronous_commit and full_page_writes off (a test run need not survive a crash, and spends much of its time
 * waiting on copies and drops of databases otherwise), with `maxConnections` if given. Answers its admin URL and a
 * stop that deletes its files.
 */
export async function startThrowawayPostgres(requestedDir, maxConnections) {
  const { startEmbeddedPostgres, isAlive } = await tsImport('../../src/db/embedded-postgres.ts', import.meta.url);
  const pg = (await import('pg')).default;
  const dir = throwawayDir(requestedDir, isAlive);
  const embedded = await startEmbeddedPostgres({
    dir,
    persistent: false,
    whenInUse: 'refuse',
    settings: maxConnections ? { max_connections: String(maxConnections) } : undefined,
  });
  const tuning = new pg.Client({ connectionString: embedded.url });
  await tuning.connect();
  for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes'])
    await tuning.query(`ALTER SYSTEM SET ${setting} = off`);
  await tuning.query('SELECT pg_reload_conf()');
  await tuning.end();
  return {
    adminUrl: embedded.url,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates and migrates a template database on `adminUrl` (pg-boss's schema and queues too, so each test database
 * starts with them), under a name unique to the caller, so two runs on one server never drop each other's. Answers
 * its name; dropTemplates drops it.
 */
export async function createTemplate(adminUrl) {
  const { migrate } = await tsImport('../../src/db/migrate.ts', import.meta.url);
  const pg = (await import('pg')).default;
  const template = `commerce_test_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  try {
    await migrate(templateUrl.toString());
    const { JobQueue } = await tsImport('../../src/jobs/queue.ts', import.meta.url);
    const silent = { debug() {}, info() {}, warn() {}, error() {}, flush() {} };
    await (await JobQueue.start(templateUrl.toString(), silent, { work: false })).stop();
  } catch (error) {
    await dropTemplates(adminUrl, template);
    throw error;
  }
  return template;
}

/** Drops `template` and the demo template made from it (tests/setup/demo.ts), with its demo file. */
export async function dropTemplates(adminUrl, template) {
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}_demo WITH (FORCE)`);
  await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  await admin.end();
  rmSync(path.join(os.tmpdir(), `${template}_demo.json`), { force: true });
}
