import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createCommerceClient, type CommerceClient } from '@commerce-api/sdk';
import { buildCustomer } from '../../factories/customer.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { exited, startMain, type Cleanups } from '../../setup/process.js';
import { WebhookReceiver, type Received } from '../../setup/webhook-receiver.js';

// The real server process (`npm start`'s entry point) with its workers, delivering to a local HTTPS
// receiver whose self-signed certificate it trusts through NODE_EXTRA_CA_CERTS, as a developer runs it.

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const start = (env: Record<string, string>) => startMain(env, cleanups);

function checkSignatures(request: Received, secret: string): { id: string; type: string; data: { id: string } } {
  expect(request.headers['x-service-signature']).toBe(
    createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest('hex'),
  );
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
  );
  return new Webhook(secret).verify(request.body, headers) as ReturnType<typeof checkSignatures>;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('webhooks in the server process', () => {
  test('with the demo key: a POST within a second, both signatures valid; 500 retried in 5 minutes, redeliver, recover; 410 pauses; after SIGKILL mid-send the delivery goes out after restart', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'webhooks-process-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const receiver = await new WebhookReceiver().start();
    cleanups.push(() => receiver.close());
    const env = {
      DATABASE_URL: database.url,
      DEMO_PROJECT: 'true',
      DATA_DIR: dataDir,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
    };
    const first = await start(env);
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const apiOf = (baseUrl: string): CommerceClient =>
      createCommerceClient({ baseUrl, apiKey: demo.keys.secret_test.token });
    let api = apiOf(first.baseUrl);
    const subscribe = async (pathname: string) => {
      const { data, response } = await api.POST('/v1/webhooks', {
        body: { url: receiver.url(pathname), events: ['customer.created'] },
      });
      expect(response.status).toBe(201);
      return data!.data;
    };
    const newCustomer = async () => {
      const { data, response } = await api.POST('/v1/customers', { body: buildCustomer() });
      expect(response.status).toBe(201);
      return data!.data;
    };
    const history = async (id: string) =>
      (await api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id } } })).data!.data;

    // Within a second, signed both ways.
    const hook = await subscribe('/demo');
    const customer = await newCustomer();
    const created = Date.now();
    const [request] = await receiver.waitFor('/demo', 1, 5_000);
    expect(request.at - created).toBeLessThan(1_000);
    expect(checkSignatures(request, hook.secret)).toMatchObject({
      type: 'customer.created',
      data: { id: customer.id },
    });

    // A receiver answering 500: the history shows the attempt and the next one 5 minutes later.
    receiver.answer('/broken', { status: 500, body: 'oops' });
    const broken = await subscribe('/broken');
    await newCustomer();
    const failed = await until(
      'a failed attempt',
      async () => (await history(broken.id)).find((d) => d.status === 'failed'),
      10_000,
    );
    expect(failed).toMatchObject({ attempt_count: 1, response_status: 500, response_body: 'oops' });
    const wait = new Date(failed.next_attempt_at!).getTime() - new Date(failed.last_attempt_at!).getTime();
    expect(wait).toBeGreaterThanOrEqual(5 * 60_000);
    expect(wait).toBeLessThanOrEqual(5.5 * 60_000);
    // Retry redelivers now; recover re-queues the failed ones.
    const retried = await api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id: broken.id, delivery_id: failed.id } },
    });
    expect(retried.response.status).toBe(202);
    await receiver.waitFor('/broken', 2);
    await until(
      'the second attempt recorded',
      async () => ((await history(broken.id))[0].attempt_count === 2 ? true : undefined),
      10_000,
    );
    receiver.answer('/broken', { status: 200 });
    const recovered = await api.POST('/v1/webhooks/{id}/recover', {
      params: { path: { id: broken.id } },
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(recovered.data!.data).toEqual({ requeued: 1 });
    await until(
      'recovered',
      async () => ((await history(broken.id))[0].status === 'succeeded' ? true : undefined),
      10_000,
    );

    // 410 pauses the subscription; nothing more reaches it.
    receiver.answer('/gone', { status: 410 });
    const gone = await subscribe('/gone');
    await newCustomer();
    await until(
      'paused',
      async () =>
        (await api.GET('/v1/webhooks/{id}', { params: { path: { id: gone.id } } })).data!.data.status === 'paused'
          ? true
          : undefined,
      10_000,
    );
    await newCustomer();
    await receiver.waitFor('/demo', 4); // the other subscription got every customer
    expect(receiver.on('/gone')).toHaveLength(1);

    // SIGKILL while the receiver holds the request: the delivery is left to be retried after restart.
    receiver.answer('/slow', 'hang');
    const slow = await subscribe('/slow');
    await newCustomer();
    const [held] = await receiver.waitFor('/slow', 1, 10_000);
    first.child.kill('SIGKILL');
    await exited(first.child);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const rows = async () =>
      (
        await client.query(
          'SELECT status, attempt_count, lease_until FROM webhook_deliveries WHERE subscription_id = $1',
          [slow.id],
        )
      ).rows;
    try {
      const [inFlight] = await rows();
      expect(inFlight).toMatchObject({ status: 'pending', attempt_count: 0 });
      expect(inFlight.lease_until).not.toBeNull();

      receiver.answer('/slow', { status: 200 });
      const second = await start(env);
      api = apiOf(second.baseUrl);
      const [, again] = await receiver.waitFor('/slow', 2, 60_000);
      expect(again.headers['webhook-id']).toBe(held.headers['webhook-id']); // the same event, sent again
      expect(again.body).toBe(held.body);
      checkSignatures(again, slow.secret);
      await until(
        'the retried delivery recorded',
        async () => ((await rows())[0].status === 'succeeded' ? true : undefined),
        10_000,
      );
      expect(await rows()).toEqual([
        expect.objectContaining({ status: 'succeeded', attempt_count: 1, lease_until: null }),
      ]);
      second.child.kill('SIGTERM');
      expect(await exited(second.child)).toBe(0);
    } finally {
      await client.end();
    }
  }, 180_000);
});
