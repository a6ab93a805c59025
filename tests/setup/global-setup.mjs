// Jest loads this file outside its module system, so TypeScript helpers come in through tsx.
import { randomBytes } from 'node:crypto';
import { tsImport } from 'tsx/esm/api';

/**
 * Starts a throwaway PostgreSQL unless TEST_DATABASE_URL is given, and migrates a template database. Its
 * name is unique to this run, so two runs on one TEST_DATABASE_URL never drop each other's template;
 * global-teardown drops it.
 */
export default async function globalSetup() {
  const { startEmbeddedPostgres, freePort } = await tsImport('../../src/db/embedded-postgres.ts', import.meta.url);
  const { migrate } = await tsImport('../../src/db/migrate.ts', import.meta.url);
  const pg = (await import('pg')).default;

  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = `${process.cwd()}/.data/jest-pg-${process.pid}`;
    const embedded = await startEmbeddedPostgres({
      dir,
      persistent: false,
      whenInUse: 'refuse',
      port: await freePort(),
    });
    globalThis.__embeddedPostgres = { embedded, dir };
    adminUrl = embedded.url;
    // A throwaway cluster need not survive a crash: no flush to disk at each commit, database copy or drop
    // (a test run spends much of its time waiting on those). A TEST_DATABASE_URL server keeps its settings.
    const tuning = new pg.Client({ connectionString: adminUrl });
    await tuning.connect();
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes'])
      await tuning.query(`ALTER SYSTEM SET ${setting} = off`);
    await tuning.query('SELECT pg_reload_conf()');
    await tuning.end();
  }
  const template = `commerce_test_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  globalThis.__testTemplate = { adminUrl, template };
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  try {
    await migrate(templateUrl.toString());
    // pg-boss's schema and queues too, so each test database starts with them instead of creating them.
    const { JobQueue } = await tsImport('../../src/jobs/queue.ts', import.meta.url);
    const silent = { debug() {}, info() {}, warn() {}, error() {}, flush() {} };
    await (await JobQueue.start(templateUrl.toString(), silent, { work: false })).stop();
  } catch (error) {
    // Jest does not run the teardown when the setup fails.
    const cleanup = new pg.Client({ connectionString: adminUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await cleanup.end();
    await globalThis.__embeddedPostgres?.embedded.stop();
    throw error;
  }

  process.env.TEST_ADMIN_URL = adminUrl;
  process.env.TEST_TEMPLATE_DB = template;
  // TEST_PGBOUNCER=1: the apps' DATABASE_URL goes through Debian's PgBouncer in transaction mode, as in a
  // deployment behind one; their sessions (change feed, pg-boss) use the direct URL (tests/setup/database.ts).
  if (process.env.TEST_PGBOUNCER === '1') {
    const { startPgBouncer } = await tsImport('./pgbouncer.ts', import.meta.url);
    const bouncer = await startPgBouncer(adminUrl);
    globalThis.__pgbouncer = bouncer;
    process.env.TEST_PGBOUNCER_PORT = String(bouncer.port);
  }
}
