import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { readMigrations } from '../../../src/db/migrate.js';
import { exited, launchMain, startWorker, type Cleanups } from '../../setup/process.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An empty database (no template: no tables, no migrations) on the test server; dropped after the file. */
async function emptyDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const name = `fresh_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('four processes starting at once on an empty database', () => {
  test('every migration is applied exactly once, by one of them; all four start; one demo project is created', async () => {
    const databaseUrl = await emptyDatabase();
    const env = () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'concurrent-start-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      return {
        DATABASE_URL: databaseUrl,
        DEMO_PROJECT: 'true',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        RUN_JOBS: 'false',
      };
    };
    // Three API processes and a job worker, each as on a machine of its own, started in the same instant.
    const apis = [launchMain(env(), cleanups), launchMain(env(), cleanups), launchMain(env(), cleanups)];
    const worker = startWorker(env(), cleanups);
    const baseUrls = await Promise.all(apis.map((api) => api.listening));
    const { output: workerOutput, child: workerChild } = await worker;

    const outputs = [...apis.map((api) => api.output()), workerOutput()];
    const migrating = outputs.filter((output) => output.includes('"applied migrations"'));
    expect(migrating).toHaveLength(1);
    const migrations = readMigrations().map((migration) => migration.name);
    for (const name of migrations) expect(migrating[0]).toContain(name);

    const sql = new pg.Client({ connectionString: databaseUrl });
    await sql.connect();
    try {
      const applied = await sql.query<{ migration_name: string; n: number }>(
        'SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY migration_name ORDER BY 1',
      );
      expect(applied.rows).toEqual(migrations.map((migration_name) => ({ migration_name, n: 1 })));
      expect((await sql.query('SELECT count(*)::int AS n FROM projects')).rows[0].n).toBe(1);
    } finally {
      await sql.end();
    }
    for (const baseUrl of baseUrls) expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);

    for (const child of [...apis.map((api) => api.child), workerChild]) child.kill('SIGTERM');
    for (const child of [...apis.map((api) => api.child), workerChild]) expect(await exited(child)).toBe(0);
  }, 180_000);
});
