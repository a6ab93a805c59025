import type { Database, Tx } from '../../db/client.js';
import { isStorefront, type Ctx } from '../../shared/context.js';
import { toValueObject, type MetafieldValues } from './metafields.mappers.js';
import { valueRows } from './metafields.sql.js';
import type { OwnerType } from './owners.js';

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
  const rows = await valueRows(db, { projectId: ctx.project.id, mode: ctx.mode, ownerType, everyDefinition }, [
    ...new Set(ownerIds),
  ]);
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
