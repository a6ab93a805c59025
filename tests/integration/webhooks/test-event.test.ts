import { describe, expect, test } from '@jest/globals';
import { createWebhook } from '../../factories/webhook.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ app: { config: { allowPrivateNetworkTargets: true } } });

describe('sendTestWebhookEvent', () => {
  test('queues one delivery marked test, of the chosen type, whatever types the subscription listens to', async () => {
    const webhook = await createWebhook(store.api, 'https://127.0.0.1:9/hook');
    const sent = await store.call('POST', `/v1/webhooks/${webhook.id}/test`, { event_type: 'order.created' });
    expect(sent.status).toBe(202);
    const { data } = (await sent.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ subscription_id: webhook.id, event_type: 'order.created', test: true });
    expect(['pending', 'failed']).toContain(data.status);
    const history = await store.api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id } } });
    expect(history.data?.data.map((d) => [d.id, d.test])).toEqual([[data.id, true]]);
  });

  test('"Refused (400) while the subscription is paused"; an unknown type is 400 naming event_type', async () => {
    const webhook = await createWebhook(store.api, 'https://127.0.0.1:9/paused');
    const bad = await store.call('POST', `/v1/webhooks/${webhook.id}/test`, { event_type: 'customer.exploded' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field?: string } }).error.field).toBe('event_type');
    await store.call('PATCH', `/v1/webhooks/${webhook.id}`, { status: 'paused' });
    const paused = await store.call('POST', `/v1/webhooks/${webhook.id}/test`, { event_type: 'customer.created' });
    expect(paused.status).toBe(400);
    expect(((await paused.json()) as { error: { message: string } }).error.message).toMatch(/paused/);
  });

  test('an unknown subscription is 404; a publishable key is 403', async () => {
    const missing = await store.call('POST', '/v1/webhooks/wh_01jd5s0a2c4e6g8j0l2n4q6s8u/test', {
      event_type: 'customer.created',
    });
    expect(missing.status).toBe(404);
    const webhook = await createWebhook(store.api, 'https://127.0.0.1:9/pk');
    const publishable = await fetch(`${store.app.baseUrl}/v1/webhooks/${webhook.id}/test`, {
      method: 'POST',
      headers: { 'X-API-Key': store.keys.publishable_test.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ event_type: 'customer.created' }),
    });
    expect(publishable.status).toBe(403);
  });
});
