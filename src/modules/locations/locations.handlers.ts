import type { AreaHandlers } from '../../shared/contract.js';
import type { Location } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { toLocationResource, toLocationWithStockResource } from './locations.mappers.js';
import {
  createLocation,
  deleteLocation,
  findLocation,
  listLocations,
  setDefaultLocation,
  stockAt,
  updateLocation,
} from './locations.service.js';
import { transferInventory } from './locations.transfer.js';

const withStock = async (ctx: Ctx, location: Location) =>
  toLocationWithStockResource(location, await stockAt(ctx.db, location.id));

export const locationHandlers = {
  listLocations: async ({ query, ctx }) => ({ status: 200, body: await listLocations(ctx, query) }),
  createLocation: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toLocationResource(await createLocation(ctx, body)) },
  }),
  getLocation: async ({ path, ctx }) => ({
    status: 200,
    body: { data: await withStock(ctx, await findLocation(ctx, ctx.db, path.id)) },
  }),
  updateLocation: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: await withStock(ctx, await updateLocation(ctx, path.id, body)) },
  }),
  deleteLocation: async ({ path, ctx }) => {
    await deleteLocation(ctx, path.id);
    return { status: 204, body: undefined };
  },
  setDefaultLocation: async ({ path, ctx }) => ({
    status: 200,
    body: { data: await withStock(ctx, await setDefaultLocation(ctx, path.id)) },
  }),
  transferLocationInventory: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: { transferred: await transferInventory(ctx, path.id, body.destination_location_id) } },
  }),
} satisfies AreaHandlers<'locations'>;
