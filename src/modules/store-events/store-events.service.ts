import type { Database } from '../../db/client.js';
import type { Prisma, Project } from '../../generated/prisma/client.js';
import { notFound } from '../../shared/errors.js';
import { paginate, type PageParams } from '../../shared/pagination.js';

export interface StoreEventFilters extends PageParams {
  type?: string;
  resource_type?: string;
  resource_id?: string;
}

/** The project's events matching the filters, newest first unless `order` is asc. */
export async function listStoreEvents(db: Database, project: Project, filters: StoreEventFilters) {
  const where: Prisma.StoreEventWhereInput = {
    projectId: project.id,
    type: filters.type,
    resourceType: filters.resource_type,
    resourceId: filters.resource_id,
  };
  return paginate({
    secret: project.signingSecret,
    params: filters,
    orderBy: { keys: [{ field: 'createdAt', kind: 'date' }], order: filters.order ?? 'desc' },
    shape: { type: filters.type, resource_type: filters.resource_type, resource_id: filters.resource_id },
    count: () => db.storeEvent.count({ where }),
    fetch: ({ after, orderBy, take }) => db.storeEvent.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take }),
  });
}

/** One event of the project; 404 "Event not found." otherwise. */
export async function getStoreEvent(db: Database, project: Project, id: string) {
  const event = await db.storeEvent.findFirst({ where: { id, projectId: project.id } });
  if (!event) throw notFound('Event not found.');
  return event;
}
