import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { statFields, treeCpuMs } from './proc-stat.js';

export const root = path.resolve(import.meta.dirname, '../..');

// The entry points package.json's start and worker scripts run compiled (`node dist/main.js`, `node dist/worker.js`);
// other scripts (`npm run seed`: src/seed/cli.ts, bench/, mocks/) run through tsx, as their npm scripts do.
const COMPILED_ENTRIES = new Set(['src/main.ts', 'src/worker.ts']);
let built = false;

/**
 * dist/ as built from the current src/ (codegen/build.mjs --if-stale: a hash of the sources, under a lock), built
 * at most once per test file (a run of many files and workers builds once), so no start compiles TypeScript.
 */
export function buildDist(): void {
  if (built) return;
  execFileSync(process.execPath, ['codegen/build.mjs', '--if-stale'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  built = true;
}

/** The compiled module npm runs for `script` (`src/main.ts` -> `dist/main.js`, built first), or undefined for a script npm runs through tsx. */
function compiledScript(script: string): string | undefined {
  if (!COMPILED_ENTRIES.has(script)) return undefined;
  buildDist();
  return script.replace(/^src\/(.+)\.ts$/, 'dist/$1.js');
}

// A start gets its wait (60 s unless the caller says); one still busy then (its process tree used a second of CPU in
// the last 10 s: a first start's initdb, migrations and demo catalog, or Prism reading the document, on a machine
// whose cores the rest of the suite shares) gets up to 60 s more. A stuck start (waiting on something that never
// comes) uses no CPU and fails when its wait is over.
const BUSY_EXTRA_MS = 60_000;
const BUSY_WINDOW_MS = 10_000;

/**
 * Waits until `started` matches the process's output (stdout and stderr) and answers the match, within the start's
 * wait (above); rejects when the process ends first (its whole output in the message) or when the wait is over,
 * saying what the process was doing (its state and its tree's CPU, from /proc), so that a failure tells a starved
 * process from a busy or a stuck one.
 */
export function waitForStart(
  child: ChildProcess,
  output: () => string,
  started: RegExp,
  waitMs = 60_000,
): Promise<RegExpExecArray> {
  const since = Date.now();
  return new Promise<RegExpExecArray>((resolve, reject) => {
    // Checked 10 s before the wait ends (the CPU so far), when it ends, then every 10 s while the last 10 s were busy.
    let cpuBefore: number | undefined;
    const check = () => {
      const cpu = treeCpuMs(child.pid);
      const waited = Date.now() - since;
      const busy = cpu !== undefined && cpuBefore !== undefined && cpu - cpuBefore >= 1000;
      if (waited < waitMs || (busy && waited < waitMs + BUSY_EXTRA_MS)) {
        cpuBefore = cpu;
        timer = setTimeout(check, BUSY_WINDOW_MS);
        return;
      }
      let state = 'gone';
      try {
        state = `state ${statFields(child.pid!)[0]}, its tree ${((cpu ?? 0) / 1000).toFixed(1)} s of CPU`;
      } catch {
        // no /proc entry: the process has exited
      }
      reject(new Error(`no start within ${Math.round(waited / 1000)} s (the process: ${state}):\n${output()}`));
    };
    let timer = setTimeout(check, waitMs - BUSY_WINDOW_MS);
    const onData = () => {
      const match = started.exec(output());
      if (!match) return;
      clearTimeout(timer);
      resolve(match);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    // 'close', not 'exit': by then every byte the process wrote has arrived, so the message shows why it stopped.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code ?? signal} before it started:\n${output()}`));
    });
  });
}

/** Things to undo after a test file (newest first): killing processes, deleting directories. */
export type Cleanups = Array<() => Promise<void> | void>;

export interface Started {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
}

const baseEnv = () => ({ PATH: process.env.PATH!, HOME: process.env.HOME! });

/**
 * Spawns the server or the worker compiled (`node dist/main.js ...args`, see compiledScript), any other script
 * through tsx (`node --import tsx <script> ...args`), or `npm start` for script 'npm start', in the project root;
 * it is SIGKILLed at cleanup if still running (`npm start` with the server it runs).
 */
function spawnScript(script: string, args: string[], env: Record<string, string>, cleanups: Cleanups) {
  const compiled = compiledScript(script);
  const viaNpm = script === 'npm start';
  const [command, commandArgs] = viaNpm
    ? ['npm', ['start']]
    : [process.execPath, compiled ? [compiled, ...args] : ['--import', 'tsx', script, ...args]];
  const child = spawn(command, commandArgs, {
    cwd: root,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // npm runs the server as its child: in a process group of their own, so that the cleanup stops both (a SIGKILL
    // to npm alone would leave the server and its embedded PostgreSQL running).
    detached: viaNpm,
  });
  // Whatever happens in the test, the process (with npm, the whole group) does not outlive it.
  cleanups.push(() => {
    if (viaNpm) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    } else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** Runs `npm start`'s entry point (dist/main.js, or with `viaNpm` `npm start` itself) as its own process and waits until it prints its base URL. */
export async function startMain(env: Record<string, string>, cleanups: Cleanups, viaNpm = false): Promise<Started> {
  const { child, output, listening } = launchMain(env, cleanups, viaNpm);
  return { child, output, baseUrl: await listening };
}

/** startMain without the wait: the process, its output so far, and its base URL once it prints it. */
export function launchMain(
  env: Record<string, string>,
  cleanups: Cleanups,
  viaNpm = false,
): Omit<Started, 'baseUrl'> & { listening: Promise<string> } {
  const { child, output } = spawnScript(
    viaNpm ? 'npm start' : 'src/main.ts',
    [],
    { PORT: '0', LOG_LEVEL: 'error', ...env },
    cleanups,
  );
  const listening = waitForStart(child, output, /listening on (http:\/\/\S+)/).then((match) => match[1]);
  listening.catch(() => {}); // the caller awaits it; a process that dies first must not be an unhandled rejection meanwhile
  return { child, output, listening };
}

/** Runs `npm run worker`'s entry point (dist/worker.js) and waits until it says it is running. */
export async function startWorker(env: Record<string, string>, cleanups: Cleanups): Promise<Omit<Started, 'baseUrl'>> {
  const { child, output } = spawnScript('src/worker.ts', [], { LOG_LEVEL: 'error', ...env }, cleanups);
  await waitForStart(child, output, /job worker running/);
  return { child, output };
}

/** Runs a script (e.g. `src/main.ts`, compiled; `src/seed/cli.ts` through tsx) to its end; its exit code and everything it printed. */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  cleanups: Cleanups,
): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnScript(script, args, env, cleanups);
  // 'close' rather than 'exit': all of its output has arrived by then.
  const code = await new Promise<number | null>((resolve) => child.once('close', (status) => resolve(status)));
  return { code, output: output() };
}

/** The exit code once the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
