import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { JobQueue } from '../../../src/jobs/queue.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { waitForDeliveries } from '../../factories/webhook.factory.js';
import { exited, root } from '../../setup/process.js';
import { stopBeforeClosing, useStore } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';

// `npm run mock:webhooks` prints the steps to try it; pasted as printed (only the API's port and DATA_DIR are
// this test's), they subscribe the project to the receiver and send it a test event, which the receiver checks
// with the secret the subscription step saved for it. The app allows loopback targets, as step 1 says.
const store = useStore({ app: { config: { allowPrivateNetworkTargets: true } } });
const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'receiver-cli-'));
const receiverDir = mkdtempSync(path.join(os.tmpdir(), 'receiver-cli-dir-'));
const cleanups: Array<() => Promise<void> | void> = [
  () => rmSync(dataDir, { recursive: true, force: true }),
  () => rmSync(receiverDir, { recursive: true, force: true }),
];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Waits until `output()` matches `pattern` (60 s at most) and returns the match. */
async function waitFor(output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = pattern.exec(output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`${String(pattern)} not printed within 60 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm run mock:webhooks', () => {
  test('its printed steps subscribe, send a test event, and the receiver verifies both signatures', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'mocks/webhook-receiver.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, RECEIVER_PORT: '0', RECEIVER_DIR: receiverDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output, /Real events follow/);
    const port = /Webhook receiver on https:\/\/127\.0\.0\.1:(\d+)\//.exec(output)![1];
    expect(output).toContain(
      `ALLOW_PRIVATE_NETWORK_TARGETS=true NODE_EXTRA_CA_CERTS=${receiverDir}/cert.pem npm start`,
    );
    // Clean steps: no markers, and the API's address from PORT, as every README command has it.
    expect(output).not.toContain('<!--');
    expect(output).toContain('API=http://127.0.0.1:${PORT:-3000}');

    // The worker delivering (step 1's NODE_EXTRA_CA_CERTS): an outbound pool trusting the receiver's certificate.
    const agent = new OutboundAgent({ ca: readFileSync(path.join(receiverDir, 'cert.pem'), 'utf8') });
    const worker = await JobQueue.start(sessionUrlOf(store.app), store.app.deps.log, {
      work: true,
      deps: { ...store.app.deps, outbound: agent },
    });
    stopBeforeClosing(store.app, () => worker.stop());
    cleanups.push(() => agent.close());

    writeFileSync(path.join(dataDir, 'demo.json'), JSON.stringify({ keys: store.keys }));
    const steps = output
      .split('\n')
      .filter((line) => /^ {3}(API=|KEY=|ID=|curl )/.test(line))
      .map((line) => line.trim().replaceAll('./.data/', `${dataDir}/`));
    expect(steps).toHaveLength(4);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', steps.join('\n')], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, PORT: new URL(store.app.baseUrl).port },
    });
    const delivery = JSON.parse(stdout) as { data: { id: string; subscription_id: string; test: boolean } };
    expect(delivery.data).toMatchObject({ test: true, event_type: 'customer.created', status: 'pending' });

    const printed = await waitFor(() => output, /POST \/hook customer\.created (\S+) \(test event\)[^\n]*\n(.*)\n(.*)/);
    expect(printed[2]).toBe('  X-Service-Signature: valid');
    expect(printed[3]).toBe('  Standard Webhooks:   valid');
    const history = await waitForDeliveries(store.api, delivery.data.subscription_id, (deliveries) =>
      deliveries.every((d) => d.status === 'succeeded'),
    );
    expect(history).toEqual([
      expect.objectContaining({ id: delivery.data.id, test: true, status: 'succeeded', response_status: 200 }),
    ]);
    const subscription = await store.api.GET('/v1/webhooks/{id}', {
      params: { path: { id: delivery.data.subscription_id } },
    });
    expect(subscription.data?.data).toMatchObject({
      url: `https://127.0.0.1:${port}/hook`,
      events: ['customer.created'],
    });

    child.kill('SIGTERM');
    await exited(child);
  }, 90_000);
});
