import { afterAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { exited, root, startMain, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const build = (...args: string[]) =>
  execFileSync(process.execPath, ['codegen/build.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('npm start runs the compiled server (dist/, built by codegen/build.mjs)', () => {
  test('dist/ holds one module per source file, and --if-stale rebuilds nothing while src/ is unchanged', () => {
    build('--if-stale');
    const hash = readFileSync(path.join(root, 'dist', '.source-hash'), 'utf8');
    build('--if-stale');
    expect(readFileSync(path.join(root, 'dist', '.source-hash'), 'utf8')).toBe(hash);
    expect(readdirSync(path.join(root, 'dist'))).toEqual(
      expect.arrayContaining(['main.js', 'http', 'modules', 'generated']),
    );
    expect(readdirSync(path.join(root, 'dist'))).not.toContain('sdk');
  });

  test('the process npm start leaves running is node dist/main.js, and it serves the API', async () => {
    const dataDir = await initialisedDataDir('compiled-start-', cleanups);
    const started = await startMain({ DATA_DIR: dataDir }, cleanups, true);
    expect((await fetch(`${started.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${started.baseUrl}/openapi.json`)).status).toBe(200);
    // npm's shell execs node: the server is the shell's process, running the compiled entry point.
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(started.child.pid)], {
      encoding: 'utf8',
    });
    const server = /^\s*(\d+) (node --liftoff-only --max-old-space-size=256 dist\/main\.js)/m.exec(children);
    expect(server?.[2]).toBe('node --liftoff-only --max-old-space-size=256 dist/main.js');
    expect(children).not.toMatch(/tsx/);
    // With glibc's allocator told to keep two arenas and to map large blocks (returned to the system when freed).
    const environment = readFileSync(`/proc/${server![1]}/environ`, 'utf8').split('\0');
    expect(environment).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=131072']));
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
  }, 120_000);
});
