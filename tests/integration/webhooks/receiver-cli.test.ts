import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { exited, root } from '../../setup/process.js';
import { useStore } from '../../setup/store.js';

// `npm run mock:webhooks` prints the subscription request to send; pasted as printed (only the API's
// address and DATA_DIR are this test's), it subscribes the project to the receiver, provided the server
// allows loopback targets as the receiver's first instruction says.
const store = useStore({ app: { config: { allowPrivateNetworkTargets: true } } });
const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'receiver-cli-'));
const cleanups: Array<() => void> = [() => rmSync(dataDir, { recursive: true, force: true })];
afterAll(() => cleanups.reverse().forEach((cleanup) => cleanup()));

describe('npm run mock:webhooks', () => {
  test('prints the exact subscription request, which creates the subscription to the receiver as printed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'mocks/webhook-receiver.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const printed = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no subscription request within 60 s:\n${output}`)), 60_000);
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const block = /<!-- subscription-request -->\n([\s\S]*?)\n<!-- \/subscription-request -->/.exec(output);
        if (block) {
          clearTimeout(timer);
          resolve(block[1]);
        }
      });
    });
    const port = /Webhook receiver on https:\/\/127\.0\.0\.1:(\d+)\//.exec(output)![1];
    expect(output).toContain('ALLOW_PRIVATE_NETWORK_TARGETS=true');

    writeFileSync(path.join(dataDir, 'demo.json'), JSON.stringify({ keys: store.keys }));
    const script = printed.replaceAll('http://127.0.0.1:3000', store.app.baseUrl).replaceAll('./.data/', `${dataDir}/`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: root });
    const created = JSON.parse(stdout) as { data: { url: string; events: string[]; secret: string } };
    expect(created.data).toMatchObject({ url: `https://127.0.0.1:${port}/hook`, events: ['customer.created'] });
    expect(created.data.secret).toMatch(/^whsec_/);

    child.kill('SIGTERM');
    await exited(child);
  }, 90_000);
});
