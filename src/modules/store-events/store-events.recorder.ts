import type { Tx } from '../../db/client.js';
import type { StoreEvent } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { newId } from '../../shared/ids.js';

export interface EventActor {
  type: 'api_key' | 'admin';
  id: string;
}

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

export interface StoreEventInput {
  type: string;
  resourceType: string;
  resourceId: string;
  summary: string;
  changes?: FieldChanges;
  /** The resource as the API shows it, for subscribers that need it (webhook payloads). */
  payload?: unknown;
}

/** Runs inside the transaction that records the event, e.g. to queue webhook deliveries. */
export type StoreEventSubscriber = (tx: Tx, event: StoreEvent, payload: unknown) => Promise<void>;
const subscribers: StoreEventSubscriber[] = [];

/** Adds a subscriber called for every event recorded from now on, in the recording transaction. */
export function subscribeToStoreEvents(subscriber: StoreEventSubscriber): void {
  subscribers.push(subscriber);
}

/** Requests with an API key act as that key. */
export function actorOf(caller: KeyCaller): EventActor {
  return { type: 'api_key', id: caller.key.id };
}

/**
 * Records an immutable store event in the caller's transaction and hands it to every subscriber in the
 * same transaction, so the write, its audit entry and its fan-out commit or roll back together.
 */
export async function recordStoreEvent(tx: Tx, projectId: string, actor: EventActor, input: StoreEventInput): Promise<StoreEvent> {
  const event = await tx.storeEvent.create({
    data: {
      id: newId('sevt_'),
      projectId,
      type: input.type,
      resourceType: input.resourceType,
      resourceId: input.resourceId,
      actorType: actor.type,
      actorId: actor.id,
      summary: input.summary,
      metadata: input.changes ? { changes: input.changes as object } : {},
    },
  });
  for (const subscriber of subscribers) await subscriber(tx, event, input.payload);
  return event;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields (API names) whose values differ between two API representations of a resource. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of fields) {
    if (!same(before[field], after[field])) changes[field] = { from: before[field] ?? null, to: after[field] ?? null };
  }
  return changes;
}
