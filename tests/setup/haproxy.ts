import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded-postgres.js';
import { guideBlock, localised } from './deploy-guide.js';

export interface RunningHaproxy {
  baseUrl: string;
  /** The configuration it runs with (docs/deploy.md's, on local addresses). */
  configFile: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * docs/deploy.md's haproxy.cfg with the test's addresses: its TLS listener becomes a plain one on
 * 127.0.0.1:`listenPort`, its two example servers become `servers` on 127.0.0.1. Everything else (health checks
 * on /readyz, retries, `option forwardfor`, /metrics refused, X-Served-By) is the guide's text as it is.
 */
export function haproxyConfig(listenPort: number, servers: Array<{ name: string; port: number }>): string {
  return localised(guideBlock('haproxy.cfg'), [
    ['bind :443 ssl crt /etc/haproxy/api.pem', `bind 127.0.0.1:${listenPort}`],
    [/^ {2}server a 10\.0\.0\.11:3000 check\n {2}server b 10\.0\.0\.12:3000 check\n/, ''],
    [
      /^ {2}http-response set-header X-Served-By %s\n/,
      `  http-response set-header X-Served-By %s\n${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check\n`).join('')}`,
    ],
  ]);
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

/**
 * A fetch that sends a request again while HAProxy answers 503 (it marks a process down when its /readyz check
 * is slower than `timeout check`, as on a loaded CI machine; the API's own 503 means nothing was written), the
 * way docs/deploy.md tells a client to; for a test's setup calls, whose subject is not that 503. Gives up after 30 s.
 */
export async function fetchRetrying503(input: Request): Promise<Response> {
  for (const deadline = Date.now() + 30_000; ;) {
    const response = await fetch(input.clone());
    if (response.status !== 503 || Date.now() > deadline) return response;
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
