import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded-postgres.js';

/**
 * A PostgreSQL primary and a streaming replica of it made with PostgreSQL's own `pg_basebackup -R`, from Debian's
 * `postgresql` package (the embedded PostgreSQL ships no pg_basebackup; .ci/run installs the package when missing).
 * Both run as the `postgres` user under a temporary directory, listening on 127.0.0.1 only.
 */
export interface PrimaryWithReplica {
  /** The primary's database `commerce` (migrate it before use). */
  primaryUrl: string;
  /** The same database on the replica. */
  replicaUrl: string;
  /** Runs SQL on the replica (`SELECT pg_wal_replay_pause()`, ...). */
  onReplica: (text: string) => Promise<pg.QueryResult>;
  /** SIGKILLs the replica's postmaster (as a crashed host). */
  killReplica: () => void;
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
function asPostgres(bin: string, program: string, args: string[]): string {
  const user = process.getuid?.() === 0 ? { uid: uidOf('postgres'), gid: gidOf('postgres') } : {};
  return execFileSync(path.join(bin, program), args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
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
export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  const bin = debianPostgresBin();
  if (!bin) throw new Error("No pg_basebackup: install Debian's postgresql package (.ci/run does).");
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replica-'));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  // A throwaway pair: no flush to disk (as the suite's own cluster), the socket in the temporary directory.
  const options = (port: number) =>
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c wal_level=replica`;
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
    asPostgres(bin, 'initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    pgCtl(primaryDir, primaryPort, 'primary.log');
    const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/commerce`;
    await query(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, 'CREATE DATABASE commerce');
    asPostgres(bin, 'pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    pgCtl(replicaDir, replicaPort, 'replica.log');
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/commerce`;
    const { rows } = await query(replicaUrl, 'SELECT pg_is_in_recovery() AS standby');
    if (!rows[0].standby) throw new Error('the copy made by pg_basebackup -R is not a standby');
    return {
      primaryUrl,
      replicaUrl,
      onReplica: (text) => query(replicaUrl, text),
      killReplica: () => {
        const pid = Number(readFileSync(path.join(replicaDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGKILL');
        stopped.push(replicaDir);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
