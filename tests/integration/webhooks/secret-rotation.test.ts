import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { JobQueue } from '../../../src/jobs/queue.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import type { CommerceClient } from '@commerce-api/sdk';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { startTestApp, type TestApp, sessionUrlOf } from '../../setup/test-app.js';
import { WebhookReceiver, type Received } from '../../setup/webhook-receiver.js';

// The app with a worker working every queue, as `npm start` runs it, delivering to a local HTTPS receiver
// whose self-signed certificate the worker's outbound pool trusts.
let app: TestApp;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let worker: JobQueue;
let store: CreatedProject;
let api: CommerceClient;
const DAY_SECONDS = 86_400;

beforeAll(async () => {
  app = await startTestApp({ config: { allowPrivateNetworkTargets: true } });
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  worker = await JobQueue.start(sessionUrlOf(app), app.deps.log, {
    work: true,
    deps: { ...app.deps, outbound: agent },
  });
  store = await createProject(app);
  api = app.client(store.keys.secret_test.token);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.close();
  await agent.close();
});

const rotate = (id: string, body?: { overlap_seconds?: number }) =>
  api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body });

/** Whether the Standard Webhooks library, verifying with `secret`, accepts the request. */
function standardVerifies(request: Received, secret: string): boolean {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  try {
    new Webhook(secret).verify(request.body, headers);
    return true;
  } catch {
    return false;
  }
}

const bodySignature = (secret: string, body: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');

/** Creates a customer (so the subscription gets an event) and returns the `n`-th request the receiver got on `path`. */
async function nextDelivery(path: string, n: number): Promise<Received> {
  await createCustomer(api);
  return (await receiver.waitFor(path, n))[n - 1];
}

describe('rotateWebhookSecret', () => {
  test('returns a new secret once; during the 24-hour default overlap deliveries are signed by both secrets, after it by the new one only', async () => {
    const webhook = await createWebhook(api, receiver.url('/rotating'));
    const before = Date.now();
    const rotated = await rotate(webhook.id);
    expect(rotated.response.status).toBe(200);
    const { secret, previous_secret_expires_at } = rotated.data!.data;
    expect(rotated.data!.data.id).toBe(webhook.id);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(webhook.secret);
    const expiresIn = new Date(previous_secret_expires_at!).getTime() - before;
    expect(expiresIn).toBeGreaterThanOrEqual(DAY_SECONDS * 1000 - 1000);
    expect(expiresIn).toBeLessThanOrEqual(DAY_SECONDS * 1000 + 5000);
    // Stored as the current secret is (every delivery is signed with it); reads never show either.
    const row = await app.deps.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect([row.secret, row.previousSecret]).toEqual([secret, webhook.secret]);
    const read = await api.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } });
    expect(JSON.stringify(read.data)).not.toContain('whsec_');

    const during = await nextDelivery('/rotating', 1);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardVerifies(during, secret)).toBe(true);
    expect(standardVerifies(during, webhook.secret)).toBe(true);
    expect(during.headers['x-service-signature']).toBe(bodySignature(secret, during.body));

    // The window ends (as if a day had passed): only the new secret signs.
    await app.deps.db.webhookSubscription.update({
      where: { id: webhook.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    const after = await nextDelivery('/rotating', 2);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerifies(after, secret)).toBe(true);
    expect(standardVerifies(after, webhook.secret)).toBe(false);
  });

  test('overlap_seconds 0 ends the old secret at once; rotating again keeps only the secret just replaced', async () => {
    const webhook = await createWebhook(api, receiver.url('/immediate'));
    const first = (await rotate(webhook.id, { overlap_seconds: 0 })).data!.data;
    expect(first.previous_secret_expires_at).toBeNull();
    const request = await nextDelivery('/immediate', 1);
    expect(standardVerifies(request, first.secret)).toBe(true);
    expect(standardVerifies(request, webhook.secret)).toBe(false);

    const second = (await rotate(webhook.id, { overlap_seconds: 3600 })).data!.data;
    const third = (await rotate(webhook.id, { overlap_seconds: 600 })).data!.data;
    const latest = await nextDelivery('/immediate', 2);
    expect([third.secret, second.secret, first.secret].map((s) => standardVerifies(latest, s))).toEqual([
      true,
      true,
      false,
    ]);
  });

  test('overlap_seconds past 7 days or negative answers 400 naming it; the secret stays as it was', async () => {
    const webhook = await createWebhook(api, receiver.url('/bounds'));
    for (const overlap_seconds of [604_801, -1]) {
      const refused = await rotate(webhook.id, { overlap_seconds });
      expect(refused.response.status).toBe(400);
      expect(refused.error!.error.field).toBe('overlap_seconds');
    }
    const row = await app.deps.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect([row.secret, row.previousSecret]).toEqual([webhook.secret, null]);
    expect((await rotate(webhook.id, { overlap_seconds: 604_800 })).response.status).toBe(200);
  });

  test("another project's subscription is 404 and keeps its secret", async () => {
    const webhook = await createWebhook(api, receiver.url('/other'));
    const other = await createProject(app);
    const refused = await app.client(other.keys.secret_test.token).POST('/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id: webhook.id } },
    });
    expect(refused.response.status).toBe(404);
    expect(refused.error!.error).toEqual({ code: 'not_found', message: 'Webhook subscription not found.' });
    const row = await app.deps.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(row.secret).toBe(webhook.secret);
  });
});
