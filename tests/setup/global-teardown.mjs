import { dropTemplates } from './test-postgres.mjs';

/**
 * Stops the PgBouncer of a TEST_PGBOUNCER run, drops the template databases this run made (the migrated one and
 * the demo one, with its demo file), then stops the throwaway PostgreSQL (if any) and deletes its files.
 */
export default async function globalTeardown() {
  await globalThis.__pgbouncer?.stop();
  const created = globalThis.__testTemplate;
  if (created) await dropTemplates(created.adminUrl, created.template);
  await globalThis.__embeddedPostgres?.stop();
}
