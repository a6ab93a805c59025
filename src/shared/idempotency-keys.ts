import type { Database } from '../db/client.js';

/** How long an Idempotency-Key is remembered (keys expire after 24 hours: openapi.yaml, "Idempotency"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Deletes idempotency keys older than 24 hours; returns how many. */
export async function purgeIdempotencyKeys(db: Database): Promise<number> {
  const { count } = await db.idempotencyKey.deleteMany({
    where: { createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } },
  });
  return count;
}
