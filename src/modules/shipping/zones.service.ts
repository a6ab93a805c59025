import type { Database, Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { Prisma, ShippingRate } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { conflict } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { recordChange, recordEvent } from '../store-events/index.js';
import { toZoneResource, type ZoneResource, type ZoneRow } from './shipping.mappers.js';
import { checkedCallbackUrl, normalizeCountries } from './zone-input.js';

type ZoneCreate = components['schemas']['ShippingZoneCreate'];
type ZoneUpdate = components['schemas']['ShippingZoneUpdate'];
export type ZoneListQuery = NonNullable<operations['listShippingZones']['parameters']['query']>;

/** Deployment rules for zone input: whether a callback host may be a private IP address (config.allowPrivateNetworkTargets). */
export interface ZoneRules {
  allowPrivateTargets: boolean;
}

const UPDATABLE_FIELDS = [
  'name',
  'countries',
  'is_rest_of_world',
  'is_active',
  'carrier_callback_url',
  'position',
] as const;
const SORTS: SortColumns<'listShippingZones'> = {
  position: [{ field: 'position', kind: 'number' }],
  created_at: [{ field: 'createdAt', kind: 'date' }],
};
const WITH_COUNT = { _count: { select: { rates: true } } } as const;
export const RATE_ORDER = [
  { position: 'asc' },
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.ShippingRateOrderByWithRelationInput[];

const REST_OF_WORLD_MESSAGE = 'This project already has a rest-of-world zone; a project has at most one.';
// The partial unique index of the shipping migration: the last word on concurrent writes.
const REST_OF_WORLD_TAKEN = {
  shipping_zones_one_rest_of_world: { field: 'is_rest_of_world', message: REST_OF_WORLD_MESSAGE },
};

/** The project's zone with its rate count; 404 "Shipping zone not found." otherwise. */
export function findZone(ctx: Ctx, db: Database | Tx, id: string): Promise<ZoneRow> {
  return findOwned(
    ctx,
    { findUnique: (args) => db.shippingZone.findUnique({ ...args, include: WITH_COUNT }) },
    id,
    'Shipping zone not found.',
  );
}

/** The zone's rates by position, then oldest first. */
export function ratesOf(db: Database | Tx, zoneId: string): Promise<ShippingRate[]> {
  return db.shippingRate.findMany({ where: { zoneId }, orderBy: [...RATE_ORDER] });
}

/** The zone as webhook payloads carry it: with its rates. */
export async function zonePayload(tx: Tx, zone: ZoneRow): Promise<ZoneResource> {
  return toZoneResource(zone, await ratesOf(tx, zone.id));
}

/** The zone, with its rates when asked for. */
export async function getZone(ctx: Ctx, id: string, withRates: boolean): Promise<ZoneResource> {
  const zone = await findZone(ctx, ctx.db, id);
  return toZoneResource(zone, withRates ? await ratesOf(ctx.db, id) : undefined);
}

/** A page of the project's zones in the requested order, with their rates when expand=rates. */
export async function listZones(ctx: Ctx, query: ZoneListQuery) {
  const withRates = query.expand?.includes('rates') ?? false;
  const include = { ...WITH_COUNT, ...(withRates && { rates: { orderBy: [...RATE_ORDER] } }) };
  const model = {
    findMany: (args: {
      where: Prisma.ShippingZoneWhereInput;
      orderBy: Record<string, 'asc' | 'desc'>[];
      take: number;
    }) => ctx.db.shippingZone.findMany({ ...args, include }) as Promise<Array<ZoneRow & { rates?: ShippingRate[] }>>,
    count: (args: { where: Prisma.ShippingZoneWhereInput }) => ctx.db.shippingZone.count(args),
  };
  return listPage(ctx, {
    model,
    where: { projectId: ctx.project.id },
    query,
    sorts: SORTS,
    defaultSort: 'position',
    map: (zone) => toZoneResource(zone, zone.rates),
  });
}

async function ensureNoOtherRestOfWorld(ctx: Ctx, tx: Tx, exceptId?: string): Promise<void> {
  const other = await tx.shippingZone.findFirst({
    where: { projectId: ctx.project.id, isRestOfWorld: true, id: exceptId ? { not: exceptId } : undefined },
    select: { id: true },
  });
  if (other) throw conflict(REST_OF_WORLD_MESSAGE, 'is_rest_of_world');
}

/** Creates a zone (countries upper-cased and checked) and records shipping.zone.created; 409 for a second rest-of-world zone, even under concurrent creates. */
export async function createZone(ctx: Ctx, input: ZoneCreate, rules: ZoneRules): Promise<ZoneResource> {
  const countries = normalizeCountries(input.countries ?? []);
  const carrierCallbackUrl = checkedCallbackUrl(input.carrier_callback_url, rules.allowPrivateTargets) ?? null;
  return writeTx(ctx, REST_OF_WORLD_TAKEN, async (tx) => {
    if (input.is_rest_of_world) await ensureNoOtherRestOfWorld(ctx, tx);
    const zone = await tx.shippingZone.create({
      data: {
        id: newId('shz_'),
        projectId: ctx.project.id,
        name: input.name,
        countries,
        isRestOfWorld: input.is_rest_of_world ?? false,
        isActive: input.is_active ?? true,
        carrierCallbackUrl,
        position: input.position ?? 0,
      },
      include: WITH_COUNT,
    });
    const resource = toZoneResource(zone, []);
    await recordEvent(tx, ctx, {
      type: 'shipping.zone.created',
      resourceType: 'shipping_zone',
      resourceId: zone.id,
      summary: `Shipping zone "${zone.name}" created`,
      payload: resource,
    });
    return resource;
  });
}

/** Applies the fields sent (countries replaces the list) and records shipping.zone.updated with the changes; unchanged input writes nothing. */
export async function updateZone(ctx: Ctx, id: string, input: ZoneUpdate, rules: ZoneRules): Promise<ZoneResource> {
  const countries = input.countries && normalizeCountries(input.countries);
  const carrierCallbackUrl = checkedCallbackUrl(input.carrier_callback_url, rules.allowPrivateTargets);
  return writeTx(ctx, REST_OF_WORLD_TAKEN, async (tx) => {
    const before = await findZone(ctx, tx, id);
    const data = {
      name: input.name,
      countries,
      isRestOfWorld: input.is_rest_of_world,
      isActive: input.is_active,
      carrierCallbackUrl,
      position: input.position,
    };
    const beforeResource = toZoneResource(before);
    const proposed = toZoneResource({ ...before, ...withoutUndefined(data) });
    if (!UPDATABLE_FIELDS.some((field) => JSON.stringify(beforeResource[field]) !== JSON.stringify(proposed[field])))
      return beforeResource;
    if (input.is_rest_of_world && !before.isRestOfWorld) await ensureNoOtherRestOfWorld(ctx, tx, id);
    const after = await tx.shippingZone.update({ where: { id }, data, include: WITH_COUNT });
    const resource = toZoneResource(after);
    await recordChange(tx, ctx, {
      type: 'shipping.zone.updated',
      resourceType: 'shipping_zone',
      resourceId: id,
      label: `Shipping zone "${after.name}"`,
      before: beforeResource,
      after: await zonePayload(tx, after),
      fields: UPDATABLE_FIELDS,
    });
    return resource;
  });
}

function withoutUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Deletes the zone and all its rates and records shipping.zone.deleted with its last state. */
export async function deleteZone(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const zone = await findZone(ctx, tx, id);
    const payload = await zonePayload(tx, zone);
    await tx.shippingZone.delete({ where: { id } }); // its rates go with it (ON DELETE CASCADE)
    await recordEvent(tx, ctx, {
      type: 'shipping.zone.deleted',
      resourceType: 'shipping_zone',
      resourceId: id,
      summary: `Shipping zone "${zone.name}" deleted`,
      payload,
    });
  });
}
