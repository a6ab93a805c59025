import type { Database, Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { WebhookSubscription } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { changedFields, notYetEmitted, type EventType } from '../store-events/index.js';
import { subscriptionsWritten, wakeDueDeliveries } from '../webhook-queue/index.js';
import { newSigningSecret } from './signing.js';
import { subscriptionUrlProblem } from './subscription-url.js';
import { toWebhookResource } from './webhooks.mappers.js';
import { rotateSecret } from './webhooks.sql.js';

type WebhookCreate = components['schemas']['WebhookCreate'];
type WebhookUpdate = components['schemas']['WebhookUpdate'];
type WebhookListQuery = NonNullable<operations['listWebhooks']['parameters']['query']>;

/** Whether subscription URLs may name non-public IP addresses (config.allowPrivateNetworkTargets). */
export interface TargetPolicy {
  allowPrivate: boolean;
}

const UPDATABLE_FIELDS = ['url', 'events', 'status'] as const;

const SORTS: SortColumns<'listWebhooks'> = { created_at: [{ field: 'createdAt', kind: 'date' }] };

function checkUrl(url: string, policy: TargetPolicy): void {
  const problem = subscriptionUrlProblem(url, policy.allowPrivate);
  if (problem) throw invalidField('url', problem);
}

/** 400 on the first event type that no operation emits yet (store-events' NOT_YET_EMITTED), saying why. */
function checkEvents(events: readonly EventType[] | undefined): void {
  events?.forEach((type, index) => {
    const reason = notYetEmitted(type);
    if (reason) {
      throw invalidField(
        `events[${index}]`,
        `${type} cannot be subscribed to yet: no operation emits it (${reason}). Subscribe to it once it is emitted.`,
      );
    }
  });
}

/** The subscription of the project; 404 "Webhook subscription not found." otherwise. */
export async function findWebhook(ctx: Ctx, db: Database | Tx, id: string): Promise<WebhookSubscription> {
  return findOwned(ctx, db.webhookSubscription, id, 'Webhook subscription not found.');
}

/**
 * Creates a subscription with a new signing secret; 400 on a URL that is not https or names a non-public IP address,
 * and on an event type no operation emits yet.
 */
export async function createWebhook(
  ctx: Ctx,
  input: WebhookCreate,
  policy: TargetPolicy,
): Promise<WebhookSubscription> {
  checkUrl(input.url, policy);
  checkEvents(input.events);
  try {
    return await ctx.db.webhookSubscription.create({
      data: {
        id: newId('wh_'),
        projectId: ctx.project.id,
        url: input.url,
        events: input.events,
        status: input.status ?? 'active',
        secret: newSigningSecret(),
      },
    });
  } finally {
    subscriptionsWritten(ctx);
  }
}

/** A page of the project's subscriptions (no secrets). */
export async function listWebhooks(ctx: Ctx, query: WebhookListQuery) {
  return listPage(ctx, {
    model: ctx.db.webhookSubscription,
    where: { projectId: ctx.project.id },
    query,
    sorts: SORTS,
    map: toWebhookResource,
  });
}

/**
 * Applies the fields sent (`events` replaces the array); unchanged input writes nothing. Pausing holds the
 * subscription's queued deliveries; making it active again wakes those that are due, in the same transaction.
 * An event type no operation emits yet answers 400.
 */
export async function updateWebhook(
  ctx: Ctx,
  id: string,
  input: WebhookUpdate,
  policy: TargetPolicy,
): Promise<WebhookSubscription> {
  if (input.url !== undefined) checkUrl(input.url, policy);
  checkEvents(input.events);
  return writeTx(ctx, {}, async (tx) => {
    const before = await findWebhook(ctx, tx, id);
    const sent = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    // Decided on the proposed state, so an unchanged PATCH writes nothing (updated_at and the ETag stay).
    const proposed = toWebhookResource({ ...before, ...sent });
    if (Object.keys(changedFields(toWebhookResource(before), proposed, UPDATABLE_FIELDS)).length === 0) return before;
    const after = await tx.webhookSubscription.update({
      where: { id },
      data: {
        url: input.url,
        events: input.events,
        status: input.status,
        // A run of failures is about the receiver the subscription had; a new start clears it.
        ...((input.url !== undefined && input.url !== before.url) ||
        (input.status === 'active' && before.status === 'paused')
          ? { failingSince: null }
          : {}),
      },
    });
    if (before.status === 'paused' && after.status === 'active') await wakeDueDeliveries(tx, ctx.jobs, id);
    return after;
  }).finally(() => subscriptionsWritten(ctx));
}

/** How long the previous secret keeps signing after a rotation unless the caller chooses (openapi.yaml, `rotateWebhookSecret`). */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

/**
 * Gives the subscription a new signing secret and returns it with the end of the overlap window: until then the
 * secret it replaces signs deliveries too (none with 0 seconds); an older previous secret is dropped. One
 * statement, so concurrent rotations each keep the secret they replaced.
 */
export async function rotateWebhookSecret(
  ctx: Ctx,
  id: string,
  overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS,
): Promise<{ secret: string; previousSecretExpiresAt: Date | null }> {
  await findWebhook(ctx, ctx.db, id);
  const secret = newSigningSecret();
  const rotated = await rotateSecret(ctx.db, ctx.project.id, id, secret, overlapSeconds);
  if (!rotated) throw notFound('Webhook subscription not found.');
  return { secret, previousSecretExpiresAt: rotated.previous_secret_expires_at };
}

/** Deletes the subscription and its delivery history; its queued deliveries are never sent. */
export async function deleteWebhook(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findWebhook(ctx, tx, id);
    await tx.webhookSubscription.delete({ where: { id } });
  }).finally(() => subscriptionsWritten(ctx));
}
