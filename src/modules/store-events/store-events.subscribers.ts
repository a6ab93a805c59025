import type { Database, Tx } from '../../db/client.js';
import type { StoreEvent } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { mayHaveSubscribers, webhookFanOut } from '../webhook-queue/index.js';

/** Runs inside the transaction that records the event, e.g. to queue webhook deliveries. */
export type StoreEventSubscriber = (tx: Tx, ctx: Ctx, event: StoreEvent, payload: unknown) => Promise<void>;

/**
 * Everything that reacts to a recorded store event, in the recording transaction. A static list: what
 * fans out is visible here, not assembled at start-up.
 */
export const storeEventSubscribers: readonly StoreEventSubscriber[] = [
  webhookFanOut, // a delivery and its wake-up job per matching active subscription
];

/**
 * False only when no subscriber would act on an event of `type` in this project (no webhook subscription
 * listens to it): a write may then insert its store event in its own statement instead of recordEvent's
 * transaction. Keep it in step with the list above.
 */
export function eventHasSubscribers(db: Database | Tx, ctx: Ctx, type: string): Promise<boolean> {
  return mayHaveSubscribers(db, ctx, type);
}
