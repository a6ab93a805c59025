import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { StoreEvent } from '../../generated/prisma/client.js';
import type { Actor, Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { storeEventSubscribers, type StoreEventSubscriber } from './store-events.subscribers.js';

/** The one event catalogue of openapi.yaml (store events and webhook event types). */
export type EventType = components['schemas']['EventType'];
type StoreEventResource = components['schemas']['StoreEvent'];

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

export interface StoreEventInput {
  type: EventType;
  resourceType: string;
  resourceId: string;
  summary: string;
  changes?: FieldChanges;
  /** The resource as the API shows it, for subscribers that need it (webhook payloads). */
  payload?: unknown;
}

/** How an actor appears in the audit log. */
export function eventActor(actor: Actor): { type: StoreEventResource['actor_type']; id: string } {
  switch (actor.kind) {
    case 'api_key':
      return { type: 'api_key', id: actor.id };
    case 'customer':
      return { type: 'customer', id: actor.id };
    case 'system':
      return { type: 'system', id: `system:${actor.name}` };
  }
}

/** The row recording `input` (a new id, the project, the actor), as recordEvent and one-statement writes insert it. */
export function storeEventRow(ctx: Pick<Ctx, 'project' | 'actor'>, input: StoreEventInput) {
  const actor = eventActor(ctx.actor);
  return {
    id: newId('sevt_'),
    projectId: ctx.project.id,
    type: input.type,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    actorType: actor.type,
    actorId: actor.id,
    summary: input.summary,
    metadata: input.changes ? { changes: input.changes as object } : {},
  } satisfies Omit<StoreEvent, 'createdAt'>;
}

/**
 * A recorder that writes an immutable store event in the caller's transaction and hands it to each of
 * `subscribers` in the same transaction, so the write, its audit entry and its fan-out commit or roll
 * back together.
 */
export function recorderWith(subscribers: readonly StoreEventSubscriber[]) {
  return async (tx: Tx, ctx: Ctx, input: StoreEventInput): Promise<StoreEvent> => {
    const event = await tx.storeEvent.create({ data: storeEventRow(ctx, input) });
    for (const subscriber of subscribers) await subscriber(tx, ctx, event, input.payload);
    return event;
  };
}

/** Records a store event in the caller's transaction, fanned out to the subscribers of store-events.subscribers.ts. */
export const recordEvent = recorderWith(storeEventSubscribers);

/**
 * Diffs two API representations of a resource over `fields` and records `type` with the changed fields
 * (summary `<label> updated (a, b)`); records nothing and returns null when nothing changed.
 */
export async function recordChange<R extends object>(
  tx: Tx,
  ctx: Ctx,
  change: {
    type: EventType;
    resourceType: string;
    resourceId: string;
    label: string;
    before: R;
    after: R;
    fields: readonly string[];
  },
): Promise<FieldChanges | null> {
  const changes = changedFields(
    change.before as Record<string, unknown>,
    change.after as Record<string, unknown>,
    change.fields,
  );
  if (Object.keys(changes).length === 0) return null;
  await recordEvent(tx, ctx, {
    type: change.type,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    summary: `${change.label} updated (${Object.keys(changes).join(', ')})`,
    changes,
    payload: change.after,
  });
  return changes;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields (API names) whose values differ between two API representations of a resource. */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of fields) {
    if (!same(before[field], after[field])) changes[field] = { from: before[field] ?? null, to: after[field] ?? null };
  }
  return changes;
}
