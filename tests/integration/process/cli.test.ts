import { afterAll, describe, expect, test } from '@jest/globals';
import { runScript, type Cleanups } from '../../setup/process.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
const run = (script: string, args: string[]) =>
  runScript(script, args, { DATA_DIR: '/nonexistent/never-used' }, cleanups);
const stackTrace = /^\s+at /m;

describe('npm run seed (src/seed/cli.ts)', () => {
  test('--help prints the usage and exits 0 without touching a database', async () => {
    const { code, output } = await run('src/seed/cli.ts', ['--help']);
    expect(code).toBe(0);
    expect(output).toContain('Usage: npm run seed -- --project <proj_...> [--products <count>]');
    expect(output).not.toMatch(stackTrace);
  });

  test('an unknown option or a bad count prints the usage, not a stack trace, and exits 2', async () => {
    for (const args of [['--bogus'], ['--project', 'proj_x', '--products', 'many'], []]) {
      const { code, output } = await run('src/seed/cli.ts', args);
      expect(code).toBe(2);
      expect(output).toContain('Usage: npm run seed');
      expect(output).not.toMatch(stackTrace);
    }
  });
});

describe('npm run bench (bench/run.ts)', () => {
  test('--help prints the options and exits 0 without starting a run', async () => {
    const { code, output } = await run('bench/run.ts', ['--help']);
    expect(code).toBe(0);
    expect(output).toContain(
      'Usage: npm run bench -- [--customers N] [--search-products N] [--products N] [--completions N] [--checkouts N] [--duration S] [--connections N] [--no-write]',
    );
    expect(output).not.toContain('Database:'); // the first line of an actual run
  });

  test('a bad value or an unknown option prints the usage and exits 2', async () => {
    for (const args of [['--customers', 'lots'], ['--duration', '0'], ['--completions', '-1'], ['--bogus']]) {
      const { code, output } = await run('bench/run.ts', args);
      expect(code).toBe(2);
      expect(output).toContain('Usage: npm run bench');
      expect(output).not.toMatch(stackTrace);
    }
  });
});
