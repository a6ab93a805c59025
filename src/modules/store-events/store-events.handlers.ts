import type { Handlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toStoreEventResource } from './store-events.mappers.js';
import { getStoreEvent, listStoreEvents } from './store-events.service.js';

export const storeEventHandlers = {
  listStoreEvents: async ({ query, caller, deps }) => {
    const { rows, pagination } = await listStoreEvents(deps.db, caller.project, query);
    return { status: 200, body: { data: rows.map((row) => pickFields(toStoreEventResource(row), query.fields)), pagination } };
  },
  getStoreEvent: async ({ path, query, caller, deps }) => {
    const event = await getStoreEvent(deps.db, caller.project, path.id);
    return { status: 200, body: { data: pickFields(toStoreEventResource(event), query.fields) } };
  },
} satisfies Pick<Handlers, 'listStoreEvents' | 'getStoreEvent'>;
