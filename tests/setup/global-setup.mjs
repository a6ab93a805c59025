import { createTemplate, startThrowawayPostgres } from './test-postgres.mjs';

/**
 * The run's PostgreSQL and migrated template (tests/setup/test-postgres.mjs):
 * - TEST_DATABASE_URL and TEST_TEMPLATE_DB both set: that server and that template, already migrated and kept by
 *   whoever made them (.ci/run's shared-postgres.mjs, for all of its jest runs); nothing to drop afterwards;
 * - TEST_DATABASE_URL only: a template of this run's own on that server (which keeps its settings);
 * - neither: a throwaway PostgreSQL and a template on it.
 * global-teardown drops what this run made.
 */
export default async function globalSetup() {
  let adminUrl = process.env.TEST_DATABASE_URL;
  const given = adminUrl ? process.env.TEST_TEMPLATE_DB : undefined;
  if (!adminUrl) {
    const started = await startThrowawayPostgres(`${process.cwd()}/.data/jest-pg-${process.pid}`);
    globalThis.__embeddedPostgres = started;
    adminUrl = started.adminUrl;
  }
  let template = given;
  if (!template) {
    try {
      template = await createTemplate(adminUrl);
    } catch (error) {
      // Jest does not run the teardown when the setup fails.
      await globalThis.__embeddedPostgres?.stop();
      throw error;
    }
    globalThis.__testTemplate = { adminUrl, template };
  }

  process.env.TEST_ADMIN_URL = adminUrl;
  process.env.TEST_TEMPLATE_DB = template;
  // TEST_PGBOUNCER=1: the apps' DATABASE_URL goes through Debian's PgBouncer in transaction mode, as in a
  // deployment behind one; their sessions (change feed, pg-boss) use the direct URL (tests/setup/database.ts).
  if (process.env.TEST_PGBOUNCER === '1') {
    const { tsImport } = await import('tsx/esm/api');
    const { startPgBouncer } = await tsImport('./pgbouncer.ts', import.meta.url);
    const bouncer = await startPgBouncer(adminUrl);
    globalThis.__pgbouncer = bouncer;
    process.env.TEST_PGBOUNCER_PORT = String(bouncer.port);
  }
}
