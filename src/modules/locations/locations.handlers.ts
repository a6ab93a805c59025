import type { Handlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toLocationResource, toLocationWithStockResource } from './locations.mappers.js';
import {
  createLocation, deleteLocation, findLocation, listLocations, setDefaultLocation, stockAt, updateLocation,
} from './locations.service.js';
import { transferInventory } from './locations.transfer.js';

export const locationHandlers = {
  listLocations: async ({ query, caller, deps }) => {
    const { rows, pagination } = await listLocations(deps.db, caller.project, query);
    return { status: 200, body: { data: rows.map((row) => pickFields(toLocationResource(row), query.fields)), pagination } };
  },
  createLocation: async ({ body, caller, deps }) => ({
    status: 201,
    body: { data: toLocationResource(await createLocation(deps.db, caller, body)) },
  }),
  getLocation: async ({ path, caller, deps }) => {
    const location = await findLocation(deps.db, caller.project.id, path.id);
    return { status: 200, body: { data: toLocationWithStockResource(location, await stockAt(deps.db, location.id)) } };
  },
  updateLocation: async ({ path, body, caller, deps }) => {
    const location = await updateLocation(deps.db, caller, path.id, body);
    return { status: 200, body: { data: toLocationWithStockResource(location, await stockAt(deps.db, location.id)) } };
  },
  deleteLocation: async ({ path, caller, deps }) => {
    await deleteLocation(deps.db, caller, path.id);
    return { status: 204, body: undefined };
  },
  setDefaultLocation: async ({ path, caller, deps }) => {
    const location = await setDefaultLocation(deps.db, caller, path.id);
    return { status: 200, body: { data: toLocationWithStockResource(location, await stockAt(deps.db, location.id)) } };
  },
  transferLocationInventory: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: { transferred: await transferInventory(deps.db, caller, path.id, body.destination_location_id) } },
  }),
} satisfies Pick<
  Handlers,
  'listLocations' | 'createLocation' | 'getLocation' | 'updateLocation' | 'deleteLocation' | 'setDefaultLocation' | 'transferLocationInventory'
>;
