import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { exited, runScript, startMain, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('one DATA_DIR, several processes (embedded PostgreSQL)', () => {
  test("npm run seed reuses the running server's PostgreSQL and leaves it up; a second npm start is refused without stopping it", async () => {
    const dataDir = await initialisedDataDir('shared-data-dir-', cleanups);
    const server = await startMain({ DATA_DIR: dataDir }, cleanups);
    cleanups.push(async () => {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
    });
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const auth = { headers: { Authorization: `Bearer ${demo.keys.secret_test.token}` } };
    const productTotal = async () => {
      const response = await fetch(`${server.baseUrl}/v1/products?limit=1`, auth);
      expect(response.status).toBe(200);
      return (await json(response)).pagination.total as number;
    };
    const before = await productTotal();

    const seed = await runScript(
      'src/seed/cli.ts',
      ['--project', demo.project_id, '--products', '200'],
      { DATA_DIR: dataDir },
      cleanups,
    );
    expect(seed.output).toContain(`Using the PostgreSQL of the running process ${server.child.pid}`);
    expect(seed.output).toContain('200 / 200 products');
    expect(seed.code).toBe(0);

    // The server's database is still up: it keeps answering, and sees the seeded products.
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(await productTotal()).toBe(before + 200);

    const second = await runScript('src/main.ts', [], { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'error' }, cleanups);
    expect(second.code).toBe(1);
    expect(second.output).toContain(
      `Not starting: DATA_DIR ${dataDir} is in use by the running process ${server.child.pid}`,
    );
    expect(second.output).not.toMatch(/^\s+at /m); // a message, not a stack trace
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(await productTotal()).toBe(before + 200);

    // Once the server has stopped (and with it its PostgreSQL), the seed starts the database for itself and stops it again.
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
    expect(existsSync(path.join(dataDir, 'postgres.owner.json'))).toBe(false);
    const alone = await runScript(
      'src/seed/cli.ts',
      ['--project', demo.project_id, '--products', '10'],
      { DATA_DIR: dataDir },
      cleanups,
    );
    expect(alone.output).not.toContain('Using the PostgreSQL of the running process');
    expect(alone.output).toContain('10 / 10 products');
    expect(alone.code).toBe(0);
    expect(existsSync(path.join(dataDir, 'postgres.owner.json'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const restarted = await startMain({ DATA_DIR: dataDir }, cleanups);
    const total = await json(await fetch(`${restarted.baseUrl}/v1/products?limit=1`, auth));
    expect(total.pagination.total).toBe(before + 210);
    restarted.child.kill('SIGTERM');
    expect(await exited(restarted.child)).toBe(0);
  }, 120_000);
});
