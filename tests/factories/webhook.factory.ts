import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import type { TestApp } from '../setup/test-app.js';

type WebhookCreate = components['schemas']['WebhookCreate'];
export type CreatedWebhook = components['schemas']['WebhookSubscriptionWithSecret'];
export type DeliveryResource = components['schemas']['WebhookDelivery'];

/** A subscription creation body: customer.created to the given URL. */
export function buildWebhook(url: string, overrides: Partial<WebhookCreate> = {}): WebhookCreate {
  return { url, events: ['customer.created'], ...overrides };
}

/** Creates a subscription through the API and returns it with its secret. */
export async function createWebhook(
  api: CommerceClient,
  url: string,
  overrides: Partial<WebhookCreate> = {},
): Promise<CreatedWebhook> {
  const { data, error, response } = await api.POST('/v1/webhooks', { body: buildWebhook(url, overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** The subscription's deliveries through the API, newest first (the first 100). */
export async function listDeliveries(api: CommerceClient, webhookId: string): Promise<DeliveryResource[]> {
  const { data, error } = await api.GET('/v1/webhooks/{id}/deliveries', {
    params: { path: { id: webhookId }, query: { limit: 100 } },
  });
  expect(error).toBeUndefined();
  return data!.data;
}

/** Polls the subscription's history until `check` accepts it; fails after `timeoutMs`. */
export async function waitForDeliveries(
  api: CommerceClient,
  webhookId: string,
  check: (deliveries: DeliveryResource[]) => boolean,
  timeoutMs = 10_000,
): Promise<DeliveryResource[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const deliveries = await listDeliveries(api, webhookId);
    if (check(deliveries)) return deliveries;
    if (Date.now() > deadline) throw new Error(`history never matched: ${JSON.stringify(deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The wake-up jobs of a delivery queued in pg-boss (created or retry), with when they start. */
export async function queuedWakeUps(
  app: TestApp,
  deliveryId: string,
): Promise<Array<{ id: string; start_after: Date }>> {
  return app.deps.db.$queryRaw`
    SELECT id::text, start_after FROM pgboss.job
    WHERE name = 'webhook-deliver' AND data->>'deliveryId' = ${deliveryId} AND state IN ('created', 'retry')
    ORDER BY start_after`;
}
