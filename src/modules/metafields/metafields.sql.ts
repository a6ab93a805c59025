import type { Database, Tx } from '../../db/client.js';

/**
 * The metafields area's hand-written statements (tagged raw SQL, values bound): the lock that serialises an owner
 * type's definition writes, and the read of many owners' values in one statement.
 */

/** Holds, until the transaction ends, the lock of the project's definitions of one owner type. */
export async function lockOwnerTypeDefinitions(tx: Tx, projectId: string, ownerType: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`metafields:${projectId}:${ownerType}`}))`;
}

/** One value of an owner, with its definition's fields. */
export interface ValueRow {
  ownerId: string;
  value: unknown;
  slug: string;
  label: string;
  valueType: string;
  choices: string[];
}

/** The owners' values in `mode` of the project's active definitions of `ownerType` (only storefront-visible ones unless `everyDefinition`), by position. */
export function valueRows(
  db: Database | Tx,
  scope: { projectId: string; mode: string; ownerType: string; everyDefinition: boolean },
  ownerIds: string[],
): Promise<ValueRow[]> {
  const { projectId, mode, ownerType, everyDefinition } = scope;
  return db.$queryRaw<ValueRow[]>`
    SELECT v.owner_id AS "ownerId", v.value, d.slug, d.label, d.value_type AS "valueType", d.choices
    FROM metafield_values v JOIN metafield_definitions d ON d.id = v.definition_id
    WHERE v.owner_id = ANY(${ownerIds}) AND v.mode = ${mode}
      AND d.project_id = ${projectId} AND d.owner_type = ${ownerType} AND d.archived_at IS NULL
      AND (${everyDefinition} OR d.storefront_visible)
    ORDER BY d.position, d.id`;
}
