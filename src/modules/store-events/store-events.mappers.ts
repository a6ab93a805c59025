import type { components } from '../../generated/openapi.js';
import type { StoreEvent } from '../../generated/prisma/client.js';

export type StoreEventResource = components['schemas']['StoreEvent'];

/** A stored event as the API shows it. */
export function toStoreEventResource(event: StoreEvent): StoreEventResource {
  return {
    id: event.id,
    type: event.type as StoreEventResource['type'],
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    actor_type: event.actorType as StoreEventResource['actor_type'],
    actor_id: event.actorId,
    summary: event.summary,
    metadata: event.metadata as StoreEventResource['metadata'],
    created_at: event.createdAt.toISOString(),
  };
}
