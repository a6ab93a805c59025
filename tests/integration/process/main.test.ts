import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase } from '../../setup/database.js';
import { json } from '../../setup/http.js';
import { isAlive } from '../../../src/db/embedded-postgres.js';
import { exited, runScript, startMain, type Cleanups } from '../../setup/process.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
const start = (env: Record<string, string>) => startMain(env, cleanups);

// The data directory of the embedded-PostgreSQL test below, once it made one: the later tests stop a server on an
// initialised cluster, which need not be a fresh one (initdb, every migration and the demo catalog cost about
// 10 CPU-seconds a start). Alone (-t), each makes its own.
let embeddedDataDir: string | undefined;
const initialisedDataDir = (prefix: string): string => {
  if (embeddedDataDir) return embeddedDataDir;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
};

describe('npm start (src/main.ts)', () => {
  test('with DATABASE_URL and DEMO_PROJECT=true: migrates, creates the demo project, prints its keys, serves, and stops cleanly on SIGTERM', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'main-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { child, output, baseUrl } = await start({
      DATABASE_URL: database.url,
      DEMO_PROJECT: 'true',
      DATA_DIR: dataDir,
    });

    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    expect(statSync(path.join(dataDir, 'demo.json')).mode & 0o777).toBe(0o600);
    for (const key of ['secret_test', 'secret_live', 'publishable_test', 'publishable_live']) {
      expect(output()).toContain(demo.keys[key].token);
    }
    // With DATABASE_URL and no PLATFORM_TOKEN the platform API is off.
    expect(output()).toContain('platform API off');
    expect(demo.platform_token).toBeUndefined();
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    const events = await fetch(`${baseUrl}/v1/events`, {
      headers: { Authorization: `Bearer ${demo.keys.secret_test.token}` },
    });
    expect(events.status).toBe(200);
    // The demo catalog was made through the services, so its writes are in the audit log.
    const log = await json(events);
    expect(log.data.map((e: { type: string }) => e.type)).toContain('product.created');
    expect(log.pagination.total).toBeGreaterThan(50);
    expect((await fetch(`${baseUrl}/platform/v1/projects/${demo.project_id}`)).status).toBe(404);

    // The demo catalog: products with variants, and sparse fields.
    const auth = { headers: { Authorization: `Bearer ${demo.keys.secret_test.token}` } };
    const products = await json(await fetch(`${baseUrl}/v1/products?limit=5`, auth));
    expect(products.data).toHaveLength(5);
    expect(products.pagination.total).toBeGreaterThanOrEqual(45);
    for (const product of products.data) expect(product.variants.length).toBeGreaterThan(0);
    const sparse = await json(await fetch(`${baseUrl}/v1/products/${products.data[0].id}?fields=title`, auth));
    expect(sparse).toEqual({ data: { id: products.data[0].id, title: products.data[0].title } });
    const stocked = products.data
      .flatMap((p: { variants: Array<{ inventory_quantity: number }> }) => p.variants)
      .filter((v: { inventory_quantity: number }) => v.inventory_quantity > 0);
    expect(stocked.length).toBeGreaterThan(0);
    const locations = await json(await fetch(`${baseUrl}/v1/locations`, auth));
    expect(locations.pagination.total).toBe(2);
    const collections = await json(await fetch(`${baseUrl}/v1/collections`, auth));
    expect(collections.pagination.total).toBe(4);

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);

    // npm run seed adds a generated catalog to a project, showing progress.
    const seed = await runScript(
      'src/seed/cli.ts',
      ['--project', demo.project_id, '--products', '300'],
      { DATABASE_URL: database.url },
      cleanups,
    );
    expect(seed.code).toBe(0);
    expect(seed.output).toContain('300 / 300 products');
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM products WHERE project_id = $1', [
      demo.project_id,
    ]);
    await client.end();
    expect(rows[0].n).toBe(products.pagination.total + 300);
  }, 120_000);

  test('without DATABASE_URL: starts the embedded PostgreSQL, prints a platform token, and recovers after being killed', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'main-embedded-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await start({ DATA_DIR: dataDir });
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    expect(first.output()).toContain(`platform token    ${demo.platform_token}`);
    const project = await fetch(`${first.baseUrl}/platform/v1/projects/${demo.project_id}`, {
      headers: { Authorization: `Bearer ${demo.platform_token}` },
    });
    expect(project.status).toBe(200);

    // SIGKILL leaves PostgreSQL running without its parent; the next start must stop it and carry on.
    first.child.kill('SIGKILL');
    await exited(first.child);
    const second = await start({ DATA_DIR: dataDir });
    cleanups.push(async () => {
      if (second.child.exitCode === null) {
        second.child.kill('SIGTERM');
        await exited(second.child);
      }
    });
    expect(second.output()).toContain(demo.keys.secret_test.token);
    const events = await fetch(`${second.baseUrl}/v1/events`, {
      headers: { Authorization: `Bearer ${demo.keys.secret_test.token}` },
    });
    expect(events.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    embeddedDataDir = dataDir;
  }, 240_000); // two starts, each up to 120 s while busy (tests/setup/process.ts)

  test('kill -TERM <pid of npm start> stops the server and its embedded PostgreSQL', async () => {
    const dataDir = initialisedDataDir('main-npm-');
    const started = await startMain({ DATA_DIR: dataDir }, cleanups, true);
    expect((await fetch(`${started.baseUrl}/healthz`)).status).toBe(200);
    const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);
    started.child.kill('SIGTERM'); // the npm process, as `kill -TERM <pid>` would
    expect(await exited(started.child)).toBe(0);
    const deadline = Date.now() + 10_000;
    while (isAlive(postmaster) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(postmaster)).toBe(false);
    await expect(fetch(`${started.baseUrl}/healthz`)).rejects.toThrow();
  }, 120_000);

  test('a second Ctrl-C while stopping cuts what holds the stop up, still stops the embedded PostgreSQL, and says so', async () => {
    const dataDir = initialisedDataDir('main-twice-');
    const started = await start({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    // A slow client: a create whose body never finishes arriving, so the orderly stop waits for it.
    const { port } = new URL(started.baseUrl);
    const slow = net.connect(Number(port), '127.0.0.1');
    cleanups.push(async () => void slow.destroy());
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(
      `POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${demo.keys.secret_test.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    slow.on('error', () => {}); // cut by the server at the second signal
    const logged = async (line: string) => {
      const deadline = Date.now() + 30_000;
      while (!started.output().includes(line) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(started.output()).toContain(line);
    };

    started.child.kill('SIGINT');
    await logged('"message":"stopping"');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(started.child.exitCode).toBeNull(); // the orderly stop waits for the open request
    started.child.kill('SIGINT');
    expect(await exited(started.child)).toBe(0);
    expect(started.output()).toContain('stopping now');
    expect(started.output()).toContain('stopped (the embedded PostgreSQL too)');
    // Stopped before the exit, not left for the next start to find.
    expect(() => process.kill(postmaster, 0)).toThrow();
    expect(existsSync(pidFile)).toBe(false);
  }, 120_000);
});
