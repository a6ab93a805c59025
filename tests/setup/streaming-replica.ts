import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, isAlive } from '../../src/db/embedded-postgres.js';
import { guideBlock, localised } from './deploy-guide.js';

/**
 * A PostgreSQL primary and a streaming replica of it made as docs/deploy.md says ("PostgreSQL: roles, database,
 * replication": its postgresql.conf, pg_hba.conf, roles.sql and pg_basebackup line, read from the page, on
 * 127.0.0.1), from Debian's `postgresql` package (the embedded PostgreSQL ships no pg_basebackup; .ci/run
 * installs the package when missing). Both run as the `postgres` user under a temporary directory.
 */
export interface PrimaryWithReplica {
  /** The primary's database `commerce` as the guide's `app` role (migrate it before use). */
  primaryUrl: string;
  /** The same database on the replica, as `app`. */
  replicaUrl: string;
  /** Runs SQL on the replica (`SELECT pg_wal_replay_pause()`, ...). */
  onReplica: (text: string) => Promise<pg.QueryResult>;
  /** Runs SQL on the primary as the superuser, in database `commerce`. */
  onPrimary: (text: string) => Promise<pg.QueryResult>;
  /** SIGKILLs the replica's postmaster (as a crashed host). */
  killReplica: () => void;
  /** SIGKILLs the primary's postmaster and every process of it (as a lost host). */
  killPrimary: () => void;
  /**
   * Resolves once the postmaster killPrimary killed is gone (reaped, not only dying): before its data directory is
   * used again, as on a host that is down. Its pid, left in postmaster.pid, still a process makes pg_rewind's
   * single-user server refuse the directory ("lock file already exists"; seen once in CI).
   */
  primaryGone: () => Promise<void>;
  primaryPort: number;
  replicaPort: number;
  primaryDir: string;
  replicaDir: string;
  /** Debian's PostgreSQL programs (psql, pg_ctl, pg_rewind, ...). */
  bin: string;
  /** Runs a PostgreSQL program as the `postgres` user (as root), returning its output. */
  run: (program: string, args: string[], env?: Record<string, string>) => string;
  /** Starts the cluster at `dataDir` (after a rebuild) on `port` with the pair's options, logging to `log`. */
  start: (dataDir: string, port: number, log: string) => void;
  stop: () => Promise<void>;
}

/** The bin directory of the newest PostgreSQL Debian installed that has pg_basebackup, or undefined. */
export function debianPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(root, versions[0], 'bin');
}

/** Runs a PostgreSQL program as the `postgres` user when this process is root (PostgreSQL refuses root). */
function asPostgres(bin: string, program: string, args: string[], env: Record<string, string> = {}): string {
  const user = process.getuid?.() === 0 ? { uid: uidOf('postgres'), gid: gidOf('postgres') } : {};
  return execFileSync(path.join(bin, program), args, {
    ...user,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
}

// The guide's passwords (roles.sql), which the test uses as they are.
const APP_PASSWORD = 'change-me-app';
const REPLICATOR_PASSWORD = 'change-me-replicator';
// The guide's network of API machines and replicas becomes this host.
const onThisHost: Array<[string | RegExp, string]> = [[/10\.0\.0\.0\/24 /, '127.0.0.1/32 ']];

/** The guide's postgresql.conf and pg_hba.conf for a cluster at `dataDir` (plus a trusted superuser for the test's own checks). */
function configure(dataDir: string): void {
  const conf = localised(guideBlock('postgresql.conf'), [
    ["listen_addresses = '10.0.0.5'", "listen_addresses = '127.0.0.1'"],
  ]);
  appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n# docs/deploy.md\n${conf}`);
  const hba = localised(guideBlock('pg_hba.conf'), onThisHost);
  writeFileSync(
    path.join(dataDir, 'pg_hba.conf'),
    `${hba}# the test's own checks\nhost all postgres 127.0.0.1/32 trust\n`,
  );
}

/** roles.sql's statements one by one (CREATE DATABASE runs outside a transaction). */
async function createRoles(adminUrl: string): Promise<void> {
  const statements = guideBlock('roles.sql')
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter(Boolean);
  for (const statement of statements) await query(adminUrl, statement);
}

/** replica.sh's pg_basebackup arguments, with the test's primary and directory. */
function basebackupArgs(primaryPort: number, replicaDir: string): string[] {
  const line = guideBlock('replica.sh')
    .split('\n')
    .find((text) => text.startsWith('pg_basebackup '));
  if (!line) throw new Error("docs/deploy.md's replica.sh runs no pg_basebackup");
  const localLine = localised(line, [
    ['-h 10.0.0.5 ', `-h 127.0.0.1 -p ${primaryPort} `],
    ['-D /var/lib/postgresql/15/main ', `-D ${replicaDir} `],
  ]);
  return localLine.split(/\s+/).slice(1);
}

const uidOf = (name: string) => Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
const gidOf = (name: string) => Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** Starts a primary, makes a replica of it with `pg_basebackup -R`, starts that, and resolves once it streams. */
export async function startPrimaryWithReplica(setup: { synchronous?: boolean } = {}): Promise<PrimaryWithReplica> {
  const bin = debianPostgresBin();
  if (!bin) throw new Error("No pg_basebackup: install Debian's postgresql package (.ci/run does).");
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replica-'));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  // A throwaway pair: no flush to disk (as the suite's own cluster), the socket in the temporary directory; the
  // rest of the configuration is the guide's.
  // (full_page_writes stays on for the failover pair: pg_rewind needs it in the server it rewinds from.)
  const options = (port: number) =>
    `-p ${port} -k ${dir} -c fsync=off${setup.synchronous ? '' : ' -c full_page_writes=off'}`;
  const pgCtl = (dataDir: string, port: number, log: string) =>
    asPostgres(bin, 'pg_ctl', ['-D', dataDir, '-o', options(port), '-l', path.join(dir, log), '-w', 'start']);
  const stopped: string[] = [];
  const stop = async () => {
    for (const dataDir of [replicaDir, primaryDir]) {
      if (stopped.includes(dataDir) || !existsSync(path.join(dataDir, 'postmaster.pid'))) continue;
      stopped.push(dataDir);
      try {
        asPostgres(bin, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']);
      } catch {
        // already gone (killed by the test)
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    asPostgres(bin, 'initdb', ['-D', primaryDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8']);
    configure(primaryDir);
    pgCtl(primaryDir, primaryPort, 'primary.log');
    const adminUrl = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    await createRoles(adminUrl(primaryPort, 'postgres'));
    const primaryUrl = `postgres://app:${APP_PASSWORD}@127.0.0.1:${primaryPort}/commerce`;
    asPostgres(bin, 'pg_basebackup', basebackupArgs(primaryPort, replicaDir), { PGPASSWORD: REPLICATOR_PASSWORD });
    pgCtl(replicaDir, replicaPort, 'replica.log');
    const replicaUrl = `postgres://app:${APP_PASSWORD}@127.0.0.1:${replicaPort}/commerce`;
    const { rows } = await query(replicaUrl, 'SELECT pg_is_in_recovery() AS standby');
    if (!rows[0].standby) throw new Error('the copy made by pg_basebackup -R is not a standby');
    if (setup.synchronous) {
      // The guide's synchronous replication, in both servers' postgresql.conf as the guide says, once the replica
      // streams (the roles and database were made without it: nothing to wait for then).
      for (const [dataDir, port] of [
        [primaryDir, primaryPort],
        [replicaDir, replicaPort],
      ] as const) {
        appendFileSync(
          path.join(dataDir, 'postgresql.conf'),
          `\n# docs/deploy.md, Failover\n${guideBlock('postgresql-synchronous.conf')}`,
        );
        await query(adminUrl(port, 'postgres'), 'SELECT pg_reload_conf()');
      }
      for (const deadline = Date.now() + 10_000; ;) {
        const sync = await query(
          adminUrl(primaryPort, 'postgres'),
          "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'",
        );
        if (sync.rowCount) break;
        if (Date.now() > deadline) throw new Error('the replica did not become a synchronous standby within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    let killedPostmaster: number | undefined;
    const kill = (dataDir: string, children = false) => {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Its backends, walsender included, at once as well: a host gone, not a postmaster that crashed alone.
      const backends = children
        ? execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
            .split(/\s+/)
            .filter(Boolean)
        : [];
      process.kill(pid, 'SIGKILL');
      for (const backend of backends) process.kill(Number(backend), 'SIGKILL');
      return pid;
    };
    return {
      primaryUrl,
      replicaUrl,
      onReplica: (text) => query(adminUrl(replicaPort, 'commerce'), text),
      onPrimary: (text) => query(adminUrl(primaryPort, 'commerce'), text),
      killReplica: () => {
        kill(replicaDir);
        stopped.push(replicaDir);
      },
      killPrimary: () => void (killedPostmaster = kill(primaryDir, true)),
      primaryGone: async () => {
        const deadline = Date.now() + 30_000;
        while (killedPostmaster !== undefined && isAlive(killedPostmaster)) {
          if (Date.now() > deadline)
            throw new Error(`the killed primary's postmaster ${killedPostmaster} is still there`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      primaryPort,
      replicaPort,
      primaryDir,
      replicaDir,
      bin,
      run: (program, args, env) => asPostgres(bin, program, args, env),
      start: pgCtl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
