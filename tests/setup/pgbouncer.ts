import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { guideBlock, localised } from './deploy-guide.js';

export interface RunningPgBouncer {
  /** `serverUrl` with PgBouncer's host and port instead of PostgreSQL's (same user, password and database). */
  url: (serverUrl: string) => string;
  port: number;
  /** The configuration file it runs with (docs/deploy.md's, on local addresses). */
  configFile: string;
  pid: number;
  stop: () => Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick, released at once). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * docs/deploy.md's pgbouncer.ini (transaction mode, every database) in front of the PostgreSQL at `host:port`,
 * with the test's addresses, port, pool size and auth file in place of the guide's.
 */
export function pgBouncerIni(options: {
  serverHost: string;
  serverPort: number;
  listenPort: number;
  authFile: string;
  poolSize: number;
}): string {
  return localised(guideBlock('pgbouncer.ini'), [
    ['host=10.0.0.5 port=5432 ', `host=${options.serverHost} port=${options.serverPort} `],
    ['listen_addr = 0.0.0.0', 'listen_addr = 127.0.0.1'],
    ['listen_port = 6432', `listen_port = ${options.listenPort}`],
    ['auth_file = /etc/pgbouncer/userlist.txt', `auth_file = ${options.authFile}`],
    ['default_pool_size = 40', `default_pool_size = ${options.poolSize}`],
  ]);
}

/**
 * Starts Debian's `pgbouncer` in transaction mode in front of the PostgreSQL of `serverUrl` (its user and
 * password in the auth file) on a free port, and resolves once it accepts connections. Run as root, it
 * switches to the `postgres` user.
 */
export async function startPgBouncer(
  serverUrl: string,
  options: { poolSize?: number; adminPassword?: string } = {},
): Promise<RunningPgBouncer> {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const authFile = path.join(dir, 'userlist.txt');
  // With adminPassword, the guide's admin user (admin_users = postgres) can use the admin console (RELOAD, SHOW).
  const admin = options.adminPassword ? `"postgres" "${options.adminPassword}"\n` : '';
  writeFileSync(
    authFile,
    `"${decodeURIComponent(server.username)}" "${decodeURIComponent(server.password)}"\n${admin}`,
    { mode: 0o644 },
  );
  const port = await freePort();
  const configFile = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    configFile,
    pgBouncerIni({
      serverHost: server.hostname,
      serverPort: Number(server.port || 5432),
      listenPort: port,
      authFile,
      poolSize: options.poolSize ?? 40,
    }) + (process.getuid?.() === 0 ? 'user = postgres\n' : ''),
    { mode: 0o644 },
  );
  const child: ChildProcess = spawn('pgbouncer', [configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output}`);
    const accepting = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (accepting) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    configFile,
    pid: child.pid!,
    url: (url) => {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
