import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The URL an app's DATABASE_URL takes for `directUrl`: with TEST_PGBOUNCER=1 the same database through the run's
 * PgBouncer (transaction mode), otherwise `directUrl` itself.
 */
export function pooledUrl(directUrl: string): string {
  const port = process.env.TEST_PGBOUNCER_PORT;
  if (!port) return directUrl;
  const url = new URL(directUrl);
  url.port = port;
  return url.toString();
}

/** The direct (session) URL of a URL pooledUrl made; any other URL is returned as it is. */
export function directUrlOf(url: string): string {
  const port = process.env.TEST_PGBOUNCER_PORT;
  const parsed = new URL(url);
  if (!port || parsed.port !== port) return url;
  parsed.port = new URL(process.env.TEST_ADMIN_URL!).port;
  return parsed.toString();
}

/**
 * A fresh database cloned from `template` (by default the migrated one); dropped by the returned function. Copied
 * file by file (STRATEGY FILE_COPY), not through the WAL (PostgreSQL's default): half the server's time for a
 * test cluster that keeps no WAL for safety anyway (tests/setup/test-postgres.mjs). `url`
 * is what the app's DATABASE_URL takes (through PgBouncer in a TEST_PGBOUNCER run), `directUrl` a session
 * connection to it.
 */
export async function createTestDatabase(
  template = process.env.TEST_TEMPLATE_DB!,
): Promise<{ url: string; directUrl: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const name = `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: pooledUrl(url.toString()),
    directUrl: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
