import type { Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import { Prisma, type Location } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { recordChange, recordEvent } from '../store-events/index.js';
import { toLocationResource, type StockCounts } from './locations.mappers.js';

type LocationCreate = components['schemas']['LocationCreate'];
type LocationUpdate = components['schemas']['LocationUpdate'];
export type LocationListQuery = NonNullable<operations['listLocations']['parameters']['query']>;

const UPDATABLE_FIELDS = [
  'name',
  'handle',
  'type',
  'is_active',
  'metadata',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'email',
] as const;
const SORTS: SortColumns<'listLocations'> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'name', kind: 'string' }],
};

const invalid = (message: string, field?: string) => new AppError('invalid_request', message, { field });

/** 400 unless the project has the locations extension. */
export function requireLocationsExtension({ project }: Pick<Ctx, 'project'>): void {
  if (!project.extensions.includes('locations')) {
    throw invalid(
      'The locations extension is not enabled for this project. Enable it to create, delete, transfer or change the default location.',
    );
  }
}

/** A live location of the project; 404 "Location not found." otherwise. */
export async function findLocation(ctx: Ctx, db: Ctx['db'] | Tx, id: string): Promise<Location> {
  return findOwned(ctx, db.location, id, 'Location not found.');
}

/** Variants with a level at the location, and the units available there. */
export async function stockAt(db: Ctx['db'] | Tx, locationId: string): Promise<StockCounts> {
  const { _count, _sum } = await db.inventoryLevel.aggregate({
    where: { locationId },
    _count: { _all: true },
    _sum: { available: true },
  });
  return { variantCount: _count._all, totalUnits: _sum.available ?? 0 };
}

const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another location already has this handle.' } };

function fieldsOf(input: LocationCreate | LocationUpdate): Prisma.LocationUncheckedUpdateInput {
  return {
    name: input.name,
    handle: input.handle,
    type: input.type,
    metadata: input.metadata === null ? Prisma.DbNull : input.metadata,
    addressLine1: input.address_line1,
    addressLine2: input.address_line2,
    city: input.city,
    state: input.state,
    postalCode: input.postal_code,
    country: input.country,
    phone: input.phone,
    email: input.email,
  };
}

/** Creates a (non-default) location with a handle unique per project; needs the locations extension. */
export async function createLocation(ctx: Ctx, input: LocationCreate): Promise<Location> {
  requireLocationsExtension(ctx);
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const handle = input.handle ?? (await allocateHandle(tx, ctx, 'location', input.name));
    const location = await tx.location.create({
      data: {
        ...(fieldsOf(input) as Prisma.LocationUncheckedCreateInput),
        id: newId('loc_'),
        projectId: ctx.project.id,
        name: input.name,
        handle,
        isDefault: false,
      },
    });
    await recordEvent(tx, ctx, {
      type: 'location.created',
      resourceType: 'location',
      resourceId: location.id,
      summary: `Location "${location.name}" created`,
      payload: toLocationResource(location),
    });
    return location;
  });
}

/** Applies the fields sent; the default location cannot be deactivated. Records location.updated with changes. */
export async function updateLocation(ctx: Ctx, id: string, input: LocationUpdate): Promise<Location> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    // Deactivating locks the location, which set-default locks too, so it sees a default set meanwhile.
    if (input.is_active === false) await lockRows(tx, 'locations', { projectId: ctx.project.id, ids: [id] });
    const before = await findLocation(ctx, tx, id);
    if (before.isDefault && input.is_active === false) {
      throw invalid(
        'The default location cannot be deactivated. Make another location the default first.',
        'is_active',
      );
    }
    const after = await tx.location.update({ where: { id }, data: { ...fieldsOf(input), isActive: input.is_active } });
    await recordLocationUpdate(tx, ctx, before, after);
    return after;
  });
}

async function recordLocationUpdate(tx: Tx, ctx: Ctx, before: Location, after: Location): Promise<void> {
  await recordChange(tx, ctx, {
    type: 'location.updated',
    resourceType: 'location',
    resourceId: after.id,
    label: `Location "${after.name}"`,
    before: toLocationResource(before),
    after: toLocationResource(after),
    fields: [...UPDATABLE_FIELDS, 'is_default'],
  });
}

/**
 * Soft-deletes a location (its handle freed) when it is not the default, not the last active location
 * and holds no inventory (every level at zero); needs the locations extension.
 */
export async function deleteLocation(ctx: Ctx, id: string): Promise<void> {
  requireLocationsExtension(ctx);
  const projectId = ctx.project.id;
  await writeTx(ctx, {}, async (tx) => {
    // Locking the project's locations serialises deletes, so two of them cannot both pass the last-active check.
    await lockRows(tx, 'locations', { projectId });
    const location = await findLocation(ctx, tx, id);
    if (location.isDefault)
      throw invalid('The default location cannot be deleted. Make another location the default first.');
    const activeOthers = await tx.location.count({
      where: { projectId, deletedAt: null, isActive: true, id: { not: id } },
    });
    if (location.isActive && activeOthers === 0)
      throw invalid('This is the last active location and cannot be deleted.');
    // Any level not at zero is inventory, even when a negative one (sold beyond stock) cancels it out in the sum.
    if ((await tx.inventoryLevel.count({ where: { locationId: id, available: { not: 0 } } })) > 0) {
      throw invalid('This location still holds inventory. Transfer inventory before deleting this location.');
    }
    // Units held there for sent drafts and checkouts (a `continue` variant may hold them without a level) move only
    // with a transfer.
    if ((await tx.inventoryReservation.count({ where: { projectId: ctx.project.id, locationId: id } })) > 0) {
      throw invalid(
        'This location still holds units reserved for draft orders or checkouts. Transfer inventory before deleting this location.',
      );
    }
    await tx.inventoryLevel.deleteMany({ where: { locationId: id } });
    await tx.location.update({
      where: { id },
      data: { deletedAt: new Date(), isActive: false, handle: `${location.handle}--deleted-${id}` },
    });
    await recordEvent(tx, ctx, {
      type: 'location.deleted',
      resourceType: 'location',
      resourceId: id,
      summary: `Location "${location.name}" deleted`,
      payload: toLocationResource(location), // the last state
    });
  });
}

/** Makes an active location the default, unsetting the previous one in the same transaction; no-op when already default. */
export async function setDefaultLocation(ctx: Ctx, id: string): Promise<Location> {
  requireLocationsExtension(ctx);
  const projectId = ctx.project.id;
  return writeTx(ctx, {}, async (tx) => {
    await lockRows(tx, 'locations', { projectId });
    const location = await findLocation(ctx, tx, id);
    if (location.isDefault) return location;
    if (!location.isActive) throw invalid('Only an active location can be the default. Activate it first.');
    const previous = await tx.location.findFirst({ where: { projectId, isDefault: true, deletedAt: null } });
    if (previous) {
      const unset = await tx.location.update({ where: { id: previous.id }, data: { isDefault: false } });
      await recordLocationUpdate(tx, ctx, previous, unset);
    }
    const after = await tx.location.update({ where: { id }, data: { isDefault: true } });
    await recordLocationUpdate(tx, ctx, location, after);
    return after;
  });
}

/** A page of the project's live locations. */
export async function listLocations(ctx: Ctx, query: LocationListQuery) {
  const where: Prisma.LocationWhereInput = {
    projectId: ctx.project.id,
    deletedAt: null,
    type: query.type,
    isActive: query.active,
  };
  return listPage(ctx, {
    model: ctx.db.location,
    where,
    query,
    sorts: SORTS,
    map: toLocationResource,
    cacheTotals: { list: 'locations', tables: ['locations'] },
  });
}
