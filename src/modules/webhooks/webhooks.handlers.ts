import type { AppDeps } from '../../app-deps.js';
import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { listDeliveries, recoverDeliveries, retryDelivery } from './deliveries.service.js';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  type TargetPolicy,
} from './subscriptions.service.js';
import { sendTestEvent } from './test-event.service.js';
import { toDeliveryResource, toSecretRotation, toWebhookResource, toWebhookWithSecret } from './webhooks.mappers.js';

const targets = (deps: AppDeps): TargetPolicy => ({ allowPrivate: deps.config.allowPrivateNetworkTargets });

export const webhookHandlers = {
  listWebhooks: async ({ query, ctx }) => ({ status: 200, body: await listWebhooks(ctx, query) }),
  createWebhook: async ({ body, ctx, deps }) => ({
    status: 201,
    body: { data: toWebhookWithSecret(await createWebhook(ctx, body, targets(deps))) },
  }),
  getWebhook: async ({ path, query, ctx }) => ({
    status: 200,
    body: { data: pickFields(toWebhookResource(await findWebhook(ctx, ctx.db, path.id)), query.fields) },
  }),
  updateWebhook: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: { data: toWebhookResource(await updateWebhook(ctx, path.id, body, targets(deps))) },
  }),
  deleteWebhook: async ({ path, ctx }) => {
    await deleteWebhook(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listWebhookDeliveries: async ({ path, query, ctx }) => ({
    status: 200,
    body: await listDeliveries(ctx, path.id, query),
  }),
  retryWebhookDelivery: async ({ path, ctx }) => ({
    status: 202,
    body: { data: toDeliveryResource(await retryDelivery(ctx, path.id, path.delivery_id)) },
  }),
  recoverWebhookDeliveries: async ({ path, body, ctx }) => ({
    status: 202,
    body: { data: { requeued: await recoverDeliveries(ctx, path.id, body.since) } },
  }),
  rotateWebhookSecret: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toSecretRotation(path.id, await rotateWebhookSecret(ctx, path.id, body?.overlap_seconds)) },
  }),
  sendTestWebhookEvent: async ({ path, body, ctx }) => ({
    status: 202,
    body: { data: toDeliveryResource(await sendTestEvent(ctx, path.id, body.event_type)) },
  }),
} satisfies AreaHandlers<'webhooks'>;
