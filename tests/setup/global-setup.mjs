// Jest loads this file outside its module system, so TypeScript helpers come in through tsx.
import { tsImport } from 'tsx/esm/api';

const TEMPLATE = 'commerce_test_template';

/** Starts a throwaway PostgreSQL unless TEST_DATABASE_URL is given, and migrates a template database. */
export default async function globalSetup() {
  const { startEmbeddedPostgres, freePort } = await tsImport('../../src/db/embedded-postgres.ts', import.meta.url);
  const { migrate } = await tsImport('../../src/db/migrate.ts', import.meta.url);
  const pg = (await import('pg')).default;

  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = `${process.cwd()}/.data/jest-pg-${process.pid}`;
    const embedded = await startEmbeddedPostgres({ dir, persistent: false, whenInUse: 'refuse', port: await freePort() });
    globalThis.__embeddedPostgres = { embedded, dir };
    adminUrl = embedded.url;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE}`;
  await migrate(templateUrl.toString());

  process.env.TEST_ADMIN_URL = adminUrl;
  process.env.TEST_TEMPLATE_DB = TEMPLATE;
}
