import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toStoreEventResource } from './store-events.mappers.js';
import { getStoreEvent, listStoreEvents } from './store-events.service.js';

export const storeEventHandlers = {
  listStoreEvents: async ({ query, ctx }) => ({ status: 200, body: await listStoreEvents(ctx, query) }),
  getStoreEvent: async ({ path, query, ctx }) => ({
    status: 200,
    body: { data: pickFields(toStoreEventResource(await getStoreEvent(ctx, path.id)), query.fields) },
  }),
} satisfies AreaHandlers<'store-events'>;
