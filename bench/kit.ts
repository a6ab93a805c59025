import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Database } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { processCpuMs, statFields, treeCpuMs } from '../tests/setup/proc-stat.js';

export { processCpuMs };

const root = path.resolve(import.meta.dirname, '..');

/**
 * A bench script's options: each name in `defaults` is `--name N` (a whole number above 0), plus `--no-write` and
 * `-h/--help`. Prints `usage` and exits 0 for help, 2 for anything invalid.
 */
export function benchOptions<Name extends string>(
  usage: string,
  defaults: Record<Name, number>,
): Record<Name, number> & { write: boolean } {
  const numbers = Object.keys(defaults) as Name[];
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        ...Object.fromEntries(numbers.map((name) => [name, { type: 'string', default: String(defaults[name]) }])),
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const positive = (name: string, text: string) => {
    const value = Number(text);
    if (Number.isInteger(value) && value > 0) return value;
    console.error(`--${name} must be a whole number above 0, got "${text}".\n\n${usage}`);
    return process.exit(2);
  };
  const parsed = Object.fromEntries(numbers.map((name) => [name, positive(name, String(values[name]))]));
  return { ...(parsed as Record<Name, number>), write: !values['no-write'] };
}

/** `src/main.ts` in production mode with `env` added; resolves with its base URL once it listens, rejects if it exits first. */
function startBenchServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  return startProcess(['--import', 'tsx', 'src/main.ts'], env);
}

function startProcess(
  args: string[],
  env: Record<string, string>,
  cwd = root,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${cwd}/${args.at(-1)} exited with ${code}: ${output}`)));
  });
}

/** The server as the read benches run it: on `databaseUrl`, any free port, no job workers, warnings only. */
export const startReadBenchServer = (databaseUrl: string) =>
  startBenchServer({ DATABASE_URL: databaseUrl, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' });

// The environment and node options npm start runs the compiled server with (a checkout's package.json:
// `NAME=value ... exec node --option ... dist/main.js`): the API is measured as deployed.
export function startCommand(checkout: string): { env: Record<string, string>; options: string[] } {
  const script = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')).scripts.start as string;
  const [before, after] = script.split('exec node ');
  const assignments = before.split('&&').at(-1)!.trim().split(/\s+/).filter(Boolean);
  return {
    env: Object.fromEntries(
      assignments.map((assignment) => [
        assignment.slice(0, assignment.indexOf('=')),
        assignment.slice(assignment.indexOf('=') + 1),
      ]),
    ),
    options: after.split(' ').filter((arg) => arg.startsWith('--')),
  };
}

/** Compiles src/ to dist/ when the sources changed (what npm start does first). */
export function buildServer(): void {
  execFileSync(process.execPath, ['codegen/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}

/**
 * The compiled server (dist/main.js, built by buildServer) of this checkout, or of another one (a worktree with
 * its own build), as npm start runs it, with `env` and any extra node options (`--cpu-prof`, ...); resolves with
 * its base URL once it listens, rejects if it exits first.
 */
export function startCompiledServer(
  env: Record<string, string>,
  nodeOptions: string[] = [],
  checkout = root,
): Promise<{ url: string; child: ChildProcess }> {
  const start = startCommand(checkout);
  return startProcess([...start.options, ...nodeOptions, 'dist/main.js'], { ...start.env, ...env }, checkout);
}

/** Stops a server started here (SIGTERM: it stops in order, and writes its CPU profile if asked to) and waits for its exit. */
export async function stopServer(server: { child: ChildProcess }): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** The machine's 1, 5 and 15 minute load averages, as `uptime` prints them. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

/**
 * The CPU time (ms) of PostgreSQL's postmaster `postmaster` and all its children (backends, WAL writer,
 * checkpointer, autovacuum), those that ended included (the postmaster's cutime and cstime count them once it has
 * reaped them); undefined without /proc or when it is gone.
 */
export const clusterCpuMs = treeCpuMs;

/** The pid of the postmaster serving `db` when PostgreSQL runs on this machine (its backend's parent), else undefined. */
export async function postmasterOf(db: Database): Promise<number | undefined> {
  const [{ pid }] = await db.$queryRawUnsafe<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
  try {
    return Number(statFields(pid)[1]);
  } catch {
    return undefined;
  }
}

/**
 * A project named `name` with its API keys, its rate limit and monthly quota set so high that a benchmark
 * measures the limits' cost, not their refusals (the limits stay on, as in production); the bench's one address
 * stands for every shopper, so one client may spend the whole storefront budget and start any number of checkouts.
 */
export async function createBenchProject(db: Database, name: string) {
  const created = await createProject(db, { name });
  await db.project.update({
    where: { id: created.project.id },
    data: {
      rateLimitPerMinute: 1_000_000,
      monthlyQuota: 1_000_000_000,
      storefrontClientSharePercent: 100,
      checkoutsPerIpPerMinute: 1_000_000,
    },
  });
  return created;
}

/**
 * A throwaway embedded PostgreSQL for one bench run (under the temp directory, named for `name` and this process,
 * on a free port, with `settings`); `stop()` stops it and removes its files.
 */
export async function startThrowawayPostgres(name: string, settings?: Record<string, string>) {
  const dir = path.join(os.tmpdir(), `commerce-${name}-${process.pid}`);
  const embedded = await startEmbeddedPostgres({
    dir,
    persistent: false,
    whenInUse: 'refuse',
    settings,
  });
  return {
    url: embedded.url,
    dir,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * autocannon's sample interval for runs of a fixed number of requests (`amount`): it ends them at its next sample
 * tick, so with its default of a second the duration it reports is rounded up to a whole second; sampled every
 * 50 ms, requests over duration is the rate.
 */
export const AMOUNT_SAMPLE_MS = 50;
