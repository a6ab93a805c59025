import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded-postgres.js';
import { guideBlock, localised } from './deploy-guide.js';
import type { RunningHaproxy } from './haproxy.js';

/**
 * docs/deploy.md's nginx block with the test's addresses: its TLS listener becomes a plain one on
 * 127.0.0.1:`listenPort` (the certificate lines go), its two example servers become `servers` on 127.0.0.1.
 */
export function nginxServerBlock(listenPort: number, servers: Array<{ port: number }>): string {
  return localised(guideBlock('nginx.conf'), [
    [
      /^ {2}server 10\.0\.0\.11:3000 max_fails=2 fail_timeout=5s;\n {2}server 10\.0\.0\.12:3000 max_fails=2 fail_timeout=5s;\n/,
      servers.map((server) => `  server 127.0.0.1:${server.port} max_fails=2 fail_timeout=5s;\n`).join(''),
    ],
    ['listen 443 ssl;', `listen 127.0.0.1:${listenPort};`],
    [/^ {2}ssl_certificate \/etc\/nginx\/api\.crt;\n {2}ssl_certificate_key \/etc\/nginx\/api\.key;\n/, ''],
  ]);
}

/** Starts Debian's `nginx` in the foreground with nginxServerBlock (inside a minimal nginx.conf of its own). */
export async function startNginx(servers: Array<{ port: number }>): Promise<RunningHaproxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nginx-'));
  const port = await freePort();
  mkdirSync(path.join(dir, 'logs'));
  const configFile = path.join(dir, 'nginx.conf');
  writeFileSync(
    configFile,
    [
      // Test-only frame: workers as this user, files under the temporary directory.
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/logs/error.log;`,
      'events {}',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};`),
      nginxServerBlock(port, servers),
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn('nginx', ['-p', dir, '-c', configFile, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      throw new Error(`nginx did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { baseUrl: `http://127.0.0.1:${port}`, configFile, output: () => output, stop };
}
