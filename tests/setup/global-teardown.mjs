import { rmSync } from 'node:fs';

/** Stops the PgBouncer of a TEST_PGBOUNCER run, drops this run's template database, then stops the throwaway PostgreSQL (if any) and deletes its files. */
export default async function globalTeardown() {
  await globalThis.__pgbouncer?.stop();
  const created = globalThis.__testTemplate;
  if (created) {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: created.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${created.template} WITH (FORCE)`);
    await admin.end();
  }
  const started = globalThis.__embeddedPostgres;
  if (!started) return;
  await started.embedded.stop();
  rmSync(started.dir, { recursive: true, force: true });
}
