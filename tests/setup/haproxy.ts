import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded-postgres.js';

export interface RunningHaproxy {
  baseUrl: string;
  /** The configuration it runs with (the one docs/deploy.md shows). */
  configFile: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * haproxy.cfg for API processes behind one address: round robin over the servers that answer `GET /readyz`
 * with 200 (checked every 250 ms; out after 2 failures, back after 2 successes). A request whose server refused
 * the connection or closed it without an answer (a process killed mid-request) is sent again to another server:
 * safe for reads and for creates sent with an Idempotency-Key (the API answers a repeated key once). With no
 * server up, HAProxy answers 503. `X-Served-By` names the server that answered.
 */
export function haproxyConfig(listenPort: number, servers: Array<{ name: string; port: number }>): string {
  return [
    'global',
    '  maxconn 2000',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout check 1s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    '',
    'frontend api',
    `  bind 127.0.0.1:${listenPort}`,
    '  default_backend api_processes',
    '',
    'backend api_processes',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server inter 250ms fall 2 rise 2',
    '  http-response set-header X-Served-By %s',
    ...servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check`),
    '',
  ].join('\n');
}

/** Starts Debian's `haproxy` in the foreground with haproxyConfig and resolves once it accepts connections. */
export async function startHaproxy(servers: Array<{ name: string; port: number }>): Promise<RunningHaproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'haproxy-'));
  const port = await freePort();
  const configFile = path.join(dir, 'haproxy.cfg');
  writeFileSync(configFile, haproxyConfig(port, servers));
  const child = spawn('haproxy', ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 10_000; ;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { baseUrl: `http://127.0.0.1:${port}`, configFile, output: () => output, stop };
}
