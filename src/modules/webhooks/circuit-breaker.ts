import type { Tx } from '../../db/client.js';
import type { JobDeps } from '../../shared/job-definition.js';
import { systemCtx } from '../../shared/context.js';
import { recordEmail } from '../platform/index.js';
import { recordEvent } from '../store-events/index.js';
import type { AttemptOutcome } from './attempt.js';
import { toWebhookResource } from './webhooks.mappers.js';
import { clearFailingSince, markFailingSince } from './webhooks.sql.js';

/** An answer meaning the receiver is gone for good: its subscription is paused at once. */
export const GONE_STATUS = 410;
/** A subscription whose every attempt failed for this long is paused. */
export const FAILING_DAYS = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

export type PauseReason = 'gone' | 'failing';
const WHY: Record<PauseReason, string> = {
  gone: 'its receiver answered 410 Gone',
  failing: `every delivery attempt to it failed for ${FAILING_DAYS} days`,
};

interface SubscriptionTally {
  anyOk: boolean;
  gone: boolean;
  firstFailure?: Date;
}

function tally(outcomes: AttemptOutcome[]): Map<string, SubscriptionTally> {
  const tallies = new Map<string, SubscriptionTally>();
  for (const outcome of outcomes) {
    const entry = tallies.get(outcome.delivery.subscription_id) ?? { anyOk: false, gone: false };
    if (outcome.ok) entry.anyOk = true;
    else if (!entry.firstFailure || outcome.attemptedAt < entry.firstFailure) entry.firstFailure = outcome.attemptedAt;
    if (outcome.responseStatus === GONE_STATUS) entry.gone = true;
    tallies.set(outcome.delivery.subscription_id, entry);
  }
  return tallies;
}

/**
 * What a batch of written outcomes means for their subscriptions, in the caller's transaction: a success
 * ends a run of failures; a failure starts one (failing_since) unless one is running; a 410 answer, or a
 * run of failures at least FAILING_DAYS old, pauses the subscription. Rows are only written when
 * something changes, so a busy healthy subscription is never locked here.
 */
export async function settleSubscriptions(
  tx: Tx,
  deps: JobDeps,
  outcomes: AttemptOutcome[],
  now = new Date(),
): Promise<void> {
  const tallies = tally(outcomes);
  const healthy = [...tallies].filter(([, t]) => t.anyOk && !t.gone).map(([id]) => id);
  const failing = [...tallies]
    .filter(([, t]) => !t.anyOk)
    .map(([id, t]) => ({ id, since: t.firstFailure!.toISOString() }));
  if (healthy.length > 0) await clearFailingSince(tx, healthy);
  const worn =
    failing.length > 0 ? await markFailingSince(tx, failing, new Date(now.getTime() - FAILING_DAYS * DAY_MS)) : [];
  for (const [id, t] of tallies) if (t.gone) await pauseSubscription(tx, deps, id, 'gone');
  for (const id of worn) if (!tallies.get(id)!.gone) await pauseSubscription(tx, deps, id, 'failing');
}

/**
 * Pauses an active subscription on the service's own decision, in the caller's transaction: records
 * webhook_subscription.paused saying why, and writes to the project's contact e-mail through the outbox
 * (kept there even when the project has no contact address). Does nothing when it is not active.
 */
export async function pauseSubscription(tx: Tx, deps: JobDeps, id: string, reason: PauseReason): Promise<void> {
  const { count } = await tx.webhookSubscription.updateMany({
    where: { id, status: 'active' },
    data: { status: 'paused' },
  });
  if (count === 0) return;
  const subscription = await tx.webhookSubscription.findUniqueOrThrow({ where: { id } });
  const project = await tx.project.findUniqueOrThrow({ where: { id: subscription.projectId } });
  const ctx = systemCtx(deps, project, 'webhook-deliver');
  await recordEvent(tx, ctx, {
    type: 'webhook_subscription.paused',
    resourceType: 'webhook_subscription',
    resourceId: id,
    summary: `Webhook subscription ${id} paused: ${WHY[reason]}`,
    changes: { status: { from: 'active', to: 'paused' } },
    payload: toWebhookResource(subscription),
  });
  await recordEmail(tx, project.id, {
    to: project.contactEmail ? [project.contactEmail] : [],
    subject: `Webhook deliveries to ${new URL(subscription.url).host} are paused`,
    text: [
      `We paused the webhook subscription ${id} (${subscription.url}) of ${project.name} because ${WHY[reason]}.`,
      'Events that happen while it is paused are not sent to it. Deliveries that were already queued wait and',
      `are sent once it is active again: PATCH /v1/webhooks/${id} with {"status": "active"}.`,
      `Failed deliveries of the last 7 days can be sent again with POST /v1/webhooks/${id}/recover.`,
    ].join('\n'),
    template: 'webhook_paused',
    data: { subscription_id: id, url: subscription.url, reason },
    locale: project.locale,
  });
}
