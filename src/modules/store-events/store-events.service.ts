import type { Database } from '../../db/client.js';
import type { operations } from '../../generated/openapi.js';
import type { Prisma, StoreEvent } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { listPage } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { toStoreEventResource } from './store-events.mappers.js';
import { deleteExpiredEvents } from './store-events.sql.js';

type StoreEventListQuery = NonNullable<operations['listStoreEvents']['parameters']['query']>;

/** The project's events matching the filters, newest first unless `order` is asc. */
export async function listStoreEvents(ctx: Ctx, query: StoreEventListQuery) {
  const where: Prisma.StoreEventWhereInput = {
    projectId: ctx.project.id,
    type: query.type,
    resourceType: query.resource_type,
    resourceId: query.resource_id,
  };
  return listPage(ctx, {
    model: ctx.db.storeEvent,
    where,
    query: { ...query, sort: 'created_at' as const },
    sorts: { created_at: [{ field: 'createdAt', kind: 'date' }] },
    map: toStoreEventResource,
    cacheTotals: { list: 'store_events', tables: ['store_events'] },
  });
}

/** One event of the project; 404 "Event not found." otherwise. */
export async function getStoreEvent(ctx: Ctx, id: string): Promise<StoreEvent> {
  return findOwned(ctx, ctx.db.storeEvent, id, 'Event not found.');
}

/** Store events are kept this many days, by plan (openapi.yaml, listStoreEvents). */
export const STORE_EVENT_RETENTION_DAYS = { free: 7, pro: 90 } as const;

/** Deletes store events older than their project's plan keeps them, in every project; returns how many. */
export function purgeStoreEvents(db: Database): Promise<number> {
  return deleteExpiredEvents(db, STORE_EVENT_RETENTION_DAYS);
}
