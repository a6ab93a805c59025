import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase } from '../../setup/database.js';
import { startPgBouncer } from '../../setup/pgbouncer.js';
import { exited, runScript, startMain, type Cleanups } from '../../setup/process.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'fail-safe-platform-token-0123456789abcdef';
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const count = async (url: string, sql: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql)).rows[0].n);
  } finally {
    await client.end();
  }
};
/** Runs npm start's (or npm run worker's) entry point to its end: it must refuse, exit 1, and say why without a stack. */
async function refused(script: 'src/main.ts' | 'src/worker.ts', env: Record<string, string>): Promise<string> {
  const { code, output } = await runScript(script, [], { PORT: '0', LOG_LEVEL: 'info', ...env }, cleanups);
  expect([code, output]).toEqual([1, expect.stringContaining('Not starting: ')]);
  expect(output).not.toMatch(/\n\s+at /);
  return output;
}

describe('a start that cannot keep its guarantees is refused, with the fix named', () => {
  test('DATABASE_URL through PgBouncer without DATABASE_DIRECT_URL: npm start and npm run worker refuse; with it, npm start runs', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const bouncer = await startPgBouncer(process.env.TEST_ADMIN_URL!);
    cleanups.push(() => bouncer.stop());
    const pooled = bouncer.url(database.directUrl);
    const env = { DATABASE_URL: pooled, DATA_DIR: tempDir('pooled-') };
    for (const script of ['src/main.ts', 'src/worker.ts'] as const)
      expect(await refused(script, env)).toContain(
        'DATABASE_URL goes through a connection pooler (PgBouncer), and DATABASE_DIRECT_URL is not set',
      );
    expect(await refused('src/main.ts', env)).toContain(
      'Set DATABASE_DIRECT_URL to a direct connection to the same database',
    );
    const started = await startMain(
      { ...env, DATABASE_DIRECT_URL: database.directUrl, RESPONSE_CHECK: 'true' },
      cleanups,
    );
    expect((await fetch(`${started.baseUrl}/readyz`)).status).toBe(200);
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
  }, 120_000);

  test('TRUST_PROXY=true is refused: it must name the load balancers', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const output = await refused('src/main.ts', { DATABASE_URL: database.url, TRUST_PROXY: 'true' });
    expect(output).toContain(
      "TRUST_PROXY=true would believe an X-Forwarded-For sent by any client. Set TRUST_PROXY to the load balancers' addresses",
    );
  }, 60_000);

  test('NODE_ENV=production is refused on the embedded database and with DEMO_PROJECT=true', async () => {
    const dataDir = tempDir('production-embedded-');
    expect(await refused('src/main.ts', { NODE_ENV: 'production', DATA_DIR: dataDir })).toContain(
      'NODE_ENV=production needs DATABASE_URL',
    );
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false); // no embedded PostgreSQL was made
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    expect(
      await refused('src/main.ts', { NODE_ENV: 'production', DATABASE_URL: database.url, DEMO_PROJECT: 'true' }),
    ).toContain('NODE_ENV=production with DEMO_PROJECT=true');
  }, 60_000);

  test('a production start on an empty database creates no demo project, prints no key, and never logs the platform token', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const dataDir = tempDir('production-');
    const started = await startMain(
      {
        NODE_ENV: 'production',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        PLATFORM_TOKEN,
        LOG_LEVEL: 'debug',
        RESPONSE_CHECK: 'true',
      },
      cleanups,
    );
    expect(await count(database.directUrl, 'SELECT count(*) AS n FROM projects')).toBe(0);
    expect(existsSync(path.join(dataDir, 'demo.json'))).toBe(false);
    expect(started.output()).toContain('platform API on (token from PLATFORM_TOKEN, not printed)');
    // The operator API with the token, a mistyped one and none: answered, and the token appears nowhere.
    const platform = (token?: string) =>
      fetch(`${started.baseUrl}/platform/v1/projects`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `Bearer ${token}` }) },
        body: JSON.stringify({ name: 'First Store' }),
      });
    const created = await platform(PLATFORM_TOKEN);
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { keys: Record<string, { token: string }> } };
    expect((await platform(`${PLATFORM_TOKEN}x`)).status).toBe(401);
    expect((await platform()).status).toBe(401);
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
    const output = started.output();
    expect(output).toContain('"message":"request"'); // debug and info lines were written
    expect(output).not.toContain(PLATFORM_TOKEN);
    for (const key of Object.values(data.keys)) expect(output).not.toContain(key.token);
    expect(output).not.toMatch(/sk_(test|live)_|pk_(test|live)_/);
  }, 60_000);

  test('NODE_ENV=production refuses a database that serves the demo project of an earlier development start; suspended, it starts', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const development = await startMain(
      { DATABASE_URL: database.url, DEMO_PROJECT: 'true', DATA_DIR: tempDir('development-') },
      cleanups,
    );
    development.child.kill('SIGTERM');
    expect(await exited(development.child)).toBe(0);
    const production = { NODE_ENV: 'production', DATABASE_URL: database.url, DATA_DIR: tempDir('production-') };
    const output = await refused('src/main.ts', production);
    expect(output).toMatch(/NODE_ENV=production, and this database serves the demo project proj_\w+/);
    expect(output).toMatch(/Suspend it first \(PATCH \/platform\/v1\/projects\/proj_\w+ with \{"suspended": true\}\)/);
    await count(database.directUrl, "UPDATE projects SET suspended = true WHERE name = 'Demo Store' RETURNING 1 AS n");
    const started = await startMain(production, cleanups);
    expect(started.output()).not.toMatch(/sk_(test|live)_|pk_(test|live)_/);
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
  }, 120_000);
});
