import type { Database, Tx } from '../../db/client.js';

/**
 * The store events' hand-written statements (tagged raw SQL, values bound): set-based purges and redactions of the
 * audit log, run on the `db` or transaction they are given.
 */

/** Deletes store events older than their project's plan keeps them (`days` by plan), in every project; returns how many. */
export function deleteExpiredEvents(db: Database, days: { free: number; pro: number }): Promise<number> {
  return db.$executeRaw`
    DELETE FROM store_events e
    USING projects p
    WHERE e.project_id = p.id
      AND e.created_at < now() - make_interval(days => CASE WHEN p.plan = 'pro'
        THEN ${days.pro}::int ELSE ${days.free}::int END)`;
}

/** Replaces the values in the field changes of the events of these resources by `[redacted]` (which fields changed stays). */
export async function redactChangesOf(tx: Tx, resourceType: string, resourceIds: string[]): Promise<void> {
  await tx.$executeRaw`
    UPDATE store_events
    SET metadata = jsonb_set(metadata, '{changes}', (
      SELECT coalesce(jsonb_object_agg(key, '{"from": "[redacted]", "to": "[redacted]"}'::jsonb), '{}'::jsonb)
      FROM jsonb_each(metadata->'changes')))
    WHERE resource_type = ${resourceType} AND resource_id = ANY(${resourceIds}) AND metadata ? 'changes'`;
}
