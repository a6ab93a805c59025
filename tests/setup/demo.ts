import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDemoProject } from '../../src/demo.js';
import { createTestDatabase } from './database.js';
import { startTestApp } from './test-app.js';

/** This run's demo template database (global-teardown drops it). */
export const demoTemplateName = () => `${process.env.TEST_TEMPLATE_DB}_demo`;
/** Where this run keeps the demo file (keys with their tokens) that the template's demo project was made with. */
export const demoFileOfRun = () => path.join(os.tmpdir(), `${demoTemplateName()}.json`);

/**
 * Makes `dataDir` hold the demo file of this run's demo template and returns the template's name: the demo project
 * as a first start creates it (`ensureDemoProject`), built once per test run by the first file that asks (the
 * others wait on an advisory lock) instead of once per file. An app cloned from it finds the project and the
 * file, as a restart does.
 */
export async function prepareDemo(dataDir: string): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [demoTemplateName()]);
    const built = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [demoTemplateName()]);
    if (built.rowCount === 0 || !existsSync(demoFileOfRun())) await buildDemoTemplate(admin);
    copyFileSync(demoFileOfRun(), path.join(dataDir, 'demo.json'));
    return demoTemplateName();
  } finally {
    await admin.end(); // ends the session, and with it the advisory lock
  }
}

// The demo project on a copy of the migrated template, renamed to this run's demo template once the app that
// made it has closed (a template must have no connections), with its demo file saved for the run.
async function buildDemoTemplate(admin: pg.Client): Promise<void> {
  await admin.query(`DROP DATABASE IF EXISTS ${demoTemplateName()} WITH (FORCE)`);
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-template-'));
  try {
    const app = await startTestApp({ databaseUrl: database.url, config: { dataDir } });
    try {
      await ensureDemoProject(app.deps);
    } finally {
      await app.close();
    }
    copyFileSync(path.join(dataDir, 'demo.json'), demoFileOfRun());
    const name = new URL(database.directUrl).pathname.slice(1);
    // A pooler (TEST_PGBOUNCER) keeps idle server connections to it after the app closed; a template has none.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    await admin.query(`ALTER DATABASE ${name} RENAME TO ${demoTemplateName()}`);
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
