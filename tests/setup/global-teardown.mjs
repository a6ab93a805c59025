import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Stops the PgBouncer of a TEST_PGBOUNCER run, drops this run's template databases (the migrated one and the demo
 * one, with its demo file), then stops the throwaway PostgreSQL (if any) and deletes its files.
 */
export default async function globalTeardown() {
  await globalThis.__pgbouncer?.stop();
  const created = globalThis.__testTemplate;
  if (created) {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: created.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${created.template}_demo WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${created.template} WITH (FORCE)`);
    await admin.end();
    rmSync(path.join(os.tmpdir(), `${created.template}_demo.json`), { force: true });
  }
  const started = globalThis.__embeddedPostgres;
  if (!started) return;
  await started.embedded.stop();
  rmSync(started.dir, { recursive: true, force: true });
}
