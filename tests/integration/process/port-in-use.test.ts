import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { runScript, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('npm start on a port another program holds', () => {
  test('says so in one line, exits 1, and stops the embedded PostgreSQL it had started', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as net.AddressInfo;
    const dataDir = await initialisedDataDir('port-in-use-', cleanups);

    const { code, output } = await runScript(
      'src/main.ts',
      [],
      { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      cleanups,
    );
    expect(code).toBe(1);
    expect(output).toContain(
      `Not starting: 127.0.0.1:${port} is in use by another program. Set PORT to a free port (PORT=0 lets the system pick one).`,
    );
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    // PostgreSQL removes its pid file when it stops; the process's claim on the data directory is gone too.
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres.owner.json'))).toBe(false);
  }, 120_000);
});
