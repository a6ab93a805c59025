import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database cloned from `template` (by default the migrated one); dropped by the returned function. */
export async function createTestDatabase(
  template = process.env.TEST_TEMPLATE_DB!,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const name = `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
