import type { Database, Tx } from '../../db/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { toValueObject, type MetafieldValues } from './metafields.mappers.js';
import type { OwnerType } from './owners.js';

interface ValueRow {
  ownerId: string;
  value: unknown;
  slug: string;
  label: string;
  valueType: string;
  choices: string[];
}

/** Whether the project has the custom_data extension, which metafield value operations need. */
export const hasCustomData = (ctx: Pick<Ctx, 'project'>) => ctx.project.extensions.includes('custom_data');

/**
 * The metafield values of the owners in the caller's mode, keyed by owner id then slug (by position), in
 * one query whatever the number of owners: values of active definitions only, storefront-visible ones
 * only for storefronts. Owners without values are absent from the map.
 */
export async function loadValues(
  ctx: Ctx,
  db: Database | Tx,
  ownerType: OwnerType,
  ownerIds: string[],
): Promise<Map<string, MetafieldValues>> {
  const byOwner = new Map<string, MetafieldValues>();
  if (ownerIds.length === 0) return byOwner;
  const everyDefinition = !isStorefront(ctx);
  const rows = await db.$queryRaw<ValueRow[]>`
    SELECT v.owner_id AS "ownerId", v.value, d.slug, d.label, d.value_type AS "valueType", d.choices
    FROM metafield_values v JOIN metafield_definitions d ON d.id = v.definition_id
    WHERE v.owner_id = ANY(${[...new Set(ownerIds)]}) AND v.mode = ${ctx.mode}
      AND d.project_id = ${ctx.project.id} AND d.owner_type = ${ownerType} AND d.archived_at IS NULL
      AND (${everyDefinition} OR d.storefront_visible)
    ORDER BY d.position, d.id`;
  for (const row of rows) {
    const values = byOwner.get(row.ownerId) ?? {};
    values[row.slug] = toValueObject(row, row.value);
    byOwner.set(row.ownerId, values);
  }
  return byOwner;
}

/**
 * The resources with `metafields` inlined when `expand` names it (and `fields`, when sent, names it too):
 * values as `loadValues` reads them, `{}` for resources without values or without the custom_data
 * extension. One query for all the resources of a page; unchanged resources otherwise.
 */
export async function withMetafields<R extends { id: string; metafields?: MetafieldValues }>(
  ctx: Ctx,
  ownerType: OwnerType,
  query: { expand?: readonly string[]; fields?: readonly string[] },
  resources: R[],
): Promise<R[]> {
  if (!query.expand?.includes('metafields') || (query.fields && !query.fields.includes('metafields'))) return resources;
  const values = hasCustomData(ctx)
    ? await loadValues(
        ctx,
        ctx.db,
        ownerType,
        resources.map((r) => r.id),
      )
    : new Map<string, MetafieldValues>();
  return resources.map((resource) => ({ ...resource, metafields: values.get(resource.id) ?? {} }));
}
