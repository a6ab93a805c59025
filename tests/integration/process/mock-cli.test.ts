import { afterAll, describe, expect, test } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '../../../src/db/embedded-postgres.js';
import { exited, root } from '../../setup/process.js';

const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

describe('npm run mock', () => {
  test('prints the URL and a first request that works as printed; SIGTERM stops it', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', '--silent', 'mock'], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, MOCK_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, tsx and Prism are stopped together at the end
    });
    cleanups.push(() => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const curl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${output}`)), 60_000);
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const line = /^\s*(curl .*)$/m.exec(output)?.[1];
        if (line) {
          clearTimeout(timer);
          resolve(line);
        }
      });
    });
    expect(output).toContain(`Mock of openapi.yaml on http://127.0.0.1:${port}`);
    const { stdout } = await run('bash', ['-c', curl], { cwd: root });
    const body = JSON.parse(stdout);
    expect(body.data[0].email).toMatch(/@/);
    expect(body.pagination).toHaveProperty('has_more');

    process.kill(-child.pid!, 'SIGTERM');
    await exited(child);
  }, 90_000);
});
