import type { components } from '../../generated/openapi.js';
import type { WebhookDelivery, WebhookSubscription } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type WebhookResource = Schemas['WebhookSubscription'];
export type WebhookWithSecretResource = Schemas['WebhookSubscriptionWithSecret'];
export type DeliveryResource = Schemas['WebhookDelivery'];
export type SecretRotationResource = Schemas['WebhookSecretRotation'];

/** A subscription as the API shows it, without its secret. */
export function toWebhookResource(subscription: WebhookSubscription): WebhookResource {
  return {
    id: subscription.id,
    url: subscription.url,
    events: subscription.events as WebhookResource['events'],
    status: subscription.status as WebhookResource['status'],
    created_at: subscription.createdAt.toISOString(),
    updated_at: subscription.updatedAt.toISOString(),
  };
}

/** A subscription with its signing secret: the creation answer only. */
export function toWebhookWithSecret(subscription: WebhookSubscription): WebhookWithSecretResource {
  const { created_at, updated_at, ...rest } = toWebhookResource(subscription);
  return { ...rest, secret: subscription.secret, created_at, updated_at };
}

/** A rotation's answer: the new secret (shown only here) and when the previous one stops signing. */
export function toSecretRotation(
  webhookId: string,
  rotated: { secret: string; previousSecretExpiresAt: Date | null },
): SecretRotationResource {
  return {
    id: webhookId,
    secret: rotated.secret,
    previous_secret_expires_at: rotated.previousSecretExpiresAt?.toISOString() ?? null,
  };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A delivery as the history shows it. */
export function toDeliveryResource(delivery: WebhookDelivery): DeliveryResource {
  return {
    id: delivery.id,
    subscription_id: delivery.subscriptionId,
    event_id: delivery.eventId,
    event_type: delivery.eventType as DeliveryResource['event_type'],
    status: delivery.status as DeliveryResource['status'],
    attempt_count: delivery.attemptCount,
    next_attempt_at: iso(delivery.nextAttemptAt),
    last_attempt_at: iso(delivery.lastAttemptAt),
    response_status: delivery.responseStatus,
    response_body: delivery.responseBody,
    duration_ms: delivery.durationMs,
    error: delivery.error,
    test: delivery.test,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
}
