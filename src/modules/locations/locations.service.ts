import type { Database, Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import { Prisma, type Location, type Project } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { AppError, conflictOn, ownedOrNotFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { paginate, type KeysetOrder } from '../../shared/pagination.js';
import { allocateHandle } from '../catalog/handles.js';
import { actorOf, changedFields, recordStoreEvent } from '../store-events/store-events.recorder.js';
import { toLocationResource, type StockCounts } from './locations.mappers.js';

type LocationCreate = components['schemas']['LocationCreate'];
type LocationUpdate = components['schemas']['LocationUpdate'];
export type LocationListQuery = NonNullable<operations['listLocations']['parameters']['query']>;

const UPDATABLE_FIELDS = ['name', 'handle', 'type', 'is_active', 'metadata', 'address_line1', 'address_line2', 'city', 'state', 'postal_code', 'country', 'phone', 'email'] as const;
const SORT_KEYS: Record<'created_at' | 'updated_at' | 'name', KeysetOrder['keys']> = {
  created_at: [{ field: 'createdAt', kind: 'date' }],
  updated_at: [{ field: 'updatedAt', kind: 'date' }],
  name: [{ field: 'name', kind: 'string' }],
};

const invalid = (message: string, field?: string) => new AppError('invalid_request', message, { field });

/** 400 unless the project has the locations extension. */
export function requireLocationsExtension(project: Project): void {
  if (!project.extensions.includes('locations')) {
    throw invalid('The locations extension is not enabled for this project. Enable it to create, delete, transfer or change the default location.');
  }
}

/** A live location of the project; 404 "Location not found." otherwise. */
export async function findLocation(db: Database | Tx, projectId: string, id: string): Promise<Location> {
  return ownedOrNotFound(await db.location.findUnique({ where: { id } }), projectId, 'Location not found.');
}

/** Variants with a level at the location, and the units available there. */
export async function stockAt(db: Database | Tx, locationId: string): Promise<StockCounts> {
  const { _count, _sum } = await db.inventoryLevel.aggregate({ where: { locationId }, _count: { _all: true }, _sum: { available: true } });
  return { variantCount: _count._all, totalUnits: _sum.available ?? 0 };
}

const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another location already has this handle.' } };

function fieldsOf(input: LocationCreate | LocationUpdate): Prisma.LocationUncheckedUpdateInput {
  return {
    name: input.name,
    handle: input.handle,
    type: input.type,
    metadata: input.metadata === null ? Prisma.DbNull : (input.metadata as Prisma.InputJsonValue | undefined),
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
export async function createLocation(db: Database, caller: KeyCaller, input: LocationCreate): Promise<Location> {
  requireLocationsExtension(caller.project);
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const handle =
        input.handle ??
        (await allocateHandle(tx, 'location', projectId, input.name, async (base) =>
          (await tx.location.findMany({ where: { projectId, handle: { startsWith: base } }, select: { handle: true } })).map((l) => l.handle),
        ));
      const location = await tx.location.create({
        data: { ...(fieldsOf(input) as Prisma.LocationUncheckedCreateInput), id: newId('loc_'), projectId, name: input.name, handle, isDefault: false },
      });
      await recordStoreEvent(tx, projectId, actorOf(caller), {
        type: 'location.created', resourceType: 'location', resourceId: location.id,
        summary: `Location "${location.name}" created`, payload: toLocationResource(location),
      });
      return location;
    });
  } catch (error) {
    throw conflictOn(error, HANDLE_TAKEN);
  }
}

/** Applies the fields sent; the default location cannot be deactivated. Records location.updated with changes. */
export async function updateLocation(db: Database, caller: KeyCaller, id: string, input: LocationUpdate): Promise<Location> {
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const before = await findLocation(tx, projectId, id);
      if (before.isDefault && input.is_active === false) {
        throw invalid('The default location cannot be deactivated. Make another location the default first.', 'is_active');
      }
      const after = await tx.location.update({ where: { id }, data: { ...fieldsOf(input), isActive: input.is_active } });
      await recordLocationUpdate(tx, caller, before, after);
      return after;
    });
  } catch (error) {
    throw conflictOn(error, HANDLE_TAKEN);
  }
}

async function recordLocationUpdate(tx: Tx, caller: KeyCaller, before: Location, after: Location): Promise<void> {
  const changes = changedFields(toLocationResource(before), toLocationResource(after), [...UPDATABLE_FIELDS, 'is_default']);
  if (Object.keys(changes).length === 0) return;
  await recordStoreEvent(tx, caller.project.id, actorOf(caller), {
    type: 'location.updated', resourceType: 'location', resourceId: after.id,
    summary: `Location "${after.name}" updated (${Object.keys(changes).join(', ')})`, changes, payload: toLocationResource(after),
  });
}

/**
 * Soft-deletes a location (its handle freed) when it is not the default, not the last active location
 * and holds no inventory; needs the locations extension.
 */
export async function deleteLocation(db: Database, caller: KeyCaller, id: string): Promise<void> {
  requireLocationsExtension(caller.project);
  const projectId = caller.project.id;
  await db.$transaction(async (tx) => {
    // Locking the project's locations serialises deletes, so two of them cannot both pass the last-active check.
    await tx.$queryRaw`SELECT id FROM locations WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY id FOR UPDATE`;
    const location = await findLocation(tx, projectId, id);
    if (location.isDefault) throw invalid('The default location cannot be deleted. Make another location the default first.');
    const activeOthers = await tx.location.count({ where: { projectId, deletedAt: null, isActive: true, id: { not: id } } });
    if (location.isActive && activeOthers === 0) throw invalid('This is the last active location and cannot be deleted.');
    if ((await stockAt(tx, id)).totalUnits !== 0) {
      throw invalid('This location still holds inventory. Transfer inventory before deleting this location.');
    }
    await tx.inventoryLevel.deleteMany({ where: { locationId: id } });
    await tx.location.update({ where: { id }, data: { deletedAt: new Date(), isActive: false, handle: `${location.handle}--deleted-${id}` } });
    await recordStoreEvent(tx, projectId, actorOf(caller), {
      type: 'location.deleted', resourceType: 'location', resourceId: id, summary: `Location "${location.name}" deleted`,
    });
  });
}

/** Makes an active location the default, unsetting the previous one in the same transaction; no-op when already default. */
export async function setDefaultLocation(db: Database, caller: KeyCaller, id: string): Promise<Location> {
  requireLocationsExtension(caller.project);
  const projectId = caller.project.id;
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM locations WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY id FOR UPDATE`;
    const location = await findLocation(tx, projectId, id);
    if (location.isDefault) return location;
    if (!location.isActive) throw invalid('Only an active location can be the default. Activate it first.');
    const previous = await tx.location.findFirst({ where: { projectId, isDefault: true, deletedAt: null } });
    if (previous) {
      const unset = await tx.location.update({ where: { id: previous.id }, data: { isDefault: false } });
      await recordLocationUpdate(tx, caller, previous, unset);
    }
    const after = await tx.location.update({ where: { id }, data: { isDefault: true } });
    await recordLocationUpdate(tx, caller, location, after);
    return after;
  });
}

/** A page of the project's live locations. */
export async function listLocations(db: Database, project: Project, query: LocationListQuery) {
  const { cursor, limit, sort = 'created_at', order = 'desc', fields: _fields, ...filters } = query;
  const where: Prisma.LocationWhereInput = { projectId: project.id, deletedAt: null, type: filters.type, isActive: filters.active };
  return paginate({
    secret: project.signingSecret,
    params: { cursor, limit, order },
    orderBy: { keys: SORT_KEYS[sort], order },
    shape: { filters, sort },
    count: () => db.location.count({ where }),
    fetch: ({ after, orderBy, take }) => db.location.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take }),
  });
}
