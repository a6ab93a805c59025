import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase } from '../../setup/database.js';
import { guideBlock, localised } from '../../setup/deploy-guide.js';
import { exited, root, type Cleanups } from '../../setup/process.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A unit file's [Service] settings (a key given twice keeps both values, in order). */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const line of unit.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) section = header[1];
    const setting = /^(\w+)=(.*)$/.exec(line);
    if (section === 'Service' && setting) settings.set(setting[1], [...(settings.get(setting[1]) ?? []), setting[2]]);
  }
  return settings;
}

/** `NAME=value` assignments (an EnvironmentFile's lines, or an Environment= value's words). */
const assignments = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter((word) => word && !word.startsWith('#'))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );

/** A port p with p to p + `count` - 1 free on 127.0.0.1. */
async function freePorts(count: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (let n = 0; n < count && ok; n++) ok = await free(base + n);
    if (ok) return base;
  }
}

/** Runs a unit's ExecStart as systemd would (its working directory here, its variables), until it prints `ready`. */
async function runUnit(settings: Map<string, string[]>, env: Record<string, string>, ready: RegExp) {
  const [command, ...args] = settings.get('ExecStart')![0].split(' ');
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  expect(
    await eventually(() => ready.test(output) || child.exitCode !== null, { timeoutMs: 90_000, intervalMs: 100 }),
  ).toBe(true);
  expect([child.exitCode, output]).toEqual([null, expect.stringMatching(ready)]);
  return { child, output: () => output };
}

describe('docs/deploy.md’s systemd units, run as systemd would', () => {
  test('the API unit and the worker unit (Restart=always) start with the environment file, serve their probes, and stop with exit 0 on their KillSignal within TimeoutStopSec', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const api = serviceSettings(guideBlock('commerce-api.service'));
    const worker = serviceSettings(guideBlock('commerce-worker.service'));
    for (const unit of [api, worker]) {
      expect(unit.get('Restart')).toEqual(['always']);
      expect(unit.get('KillSignal')).toEqual(['SIGTERM']);
      expect(unit.get('EnvironmentFile')).toEqual(['/etc/commerce/commerce.env']);
    }
    expect(api.get('ExecStart')).toEqual(['/usr/bin/npm start']);
    expect(worker.get('ExecStart')).toEqual(['/usr/bin/npm run worker']);

    // The environment file with the test's database (its replica: the database itself) in place of the guide's.
    const shared = assignments(
      localised(guideBlock('commerce.env'), [
        // (the session entry first: the other URL is a prefix of it)
        ['postgres://app:change-me-app@10.0.0.4:6432/commerce_session', database.directUrl],
        ['postgres://app:change-me-app@10.0.0.4:6432/commerce', database.url],
        ['postgres://app:change-me-app@10.0.0.6:5432/commerce', database.directUrl],
      ]),
    );
    expect(shared.NODE_ENV).toBe('production');
    const [apiPort, metricsPorts, workerPort] = [await freePorts(1), await freePorts(3), await freePorts(1)];
    const here = (unit: Map<string, string[]>, ports: Array<[string, string]>) =>
      assignments(localised(unit.get('Environment')!.join(' '), [['HOST=0.0.0.0', 'HOST=127.0.0.1'], ...ports]));
    const apiEnv = {
      ...shared,
      ...here(api, [
        ['PORT=3000', `PORT=${apiPort}`],
        ['METRICS_PORT=9100', `METRICS_PORT=${metricsPorts}`],
        // Two API processes whatever this machine's CPUs (the unit's `auto`).
        ['WEB_CONCURRENCY=auto', 'WEB_CONCURRENCY=2'],
      ]),
      RESPONSE_CHECK: 'true',
    };
    const apiUnit = await runUnit(api, apiEnv, /listening on http:\/\/\S+/);
    expect(apiUnit.output()).toContain('2 API processes (WEB_CONCURRENCY), jobs in this one');
    const workerEnv = { ...shared, ...here(worker, [['METRICS_PORT=9200', `METRICS_PORT=${workerPort}`]]) };
    const workerUnit = await runUnit(worker, workerEnv, /job worker running/);

    const status = async (url: string) => (await fetch(url)).status;
    expect(await status(`http://127.0.0.1:${apiPort}/readyz`)).toBe(200);
    for (const port of [metricsPorts, metricsPorts + 1, metricsPorts + 2])
      expect(await status(`http://127.0.0.1:${port}/readyz`)).toBe(200);
    expect(
      await eventually(async () => (await status(`http://127.0.0.1:${workerPort}/readyz?scope=jobs`)) === 200, {
        timeoutMs: 20_000,
        intervalMs: 250,
      }),
    ).toBe(true);
    // Production: no demo project, no key printed.
    expect(apiUnit.output()).not.toMatch(/sk_(test|live)_|pk_(test|live)_/);

    const stopWithin = async (child: ReturnType<typeof spawn>, seconds: number) => {
      const started = Date.now();
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(Date.now() - started).toBeLessThan(seconds * 1000);
    };
    await stopWithin(workerUnit.child, Number(worker.get('TimeoutStopSec')![0]));
    await stopWithin(apiUnit.child, Number(api.get('TimeoutStopSec')![0]));
  }, 240_000);
});
