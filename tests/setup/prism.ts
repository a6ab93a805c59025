import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../src/db/embedded-postgres.js';
import { root, waitForStart } from './process.js';

export interface Prism {
  baseUrl: string;
  /** Everything Prism printed (its log names each request and any violation). */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts Prism (`prism mock openapi.yaml` or `prism proxy openapi.yaml <upstream> --errors`) on a free
 * port of 127.0.0.1 and resolves once it listens; `stop` ends it. `documentPath` serves another document.
 */
export async function startPrism(
  mode: { mock: true } | { proxyTo: string },
  documentPath = 'openapi.yaml',
): Promise<Prism> {
  const port = await freePort();
  const args = 'mock' in mode ? ['mock', documentPath] : ['proxy', documentPath, mode.proxyTo, '--errors'];
  const child = spawn(path.join(root, 'node_modules/.bin/prism'), [...args, '-h', '127.0.0.1', '-p', String(port)], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME! },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForStart(child, () => output, /Prism is listening on/);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
