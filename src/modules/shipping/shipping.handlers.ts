import type { AppDeps } from '../../app-deps.js';
import type { AreaHandlers } from '../../shared/contract.js';
import { entityTagOf } from '../../shared/entity-tag.js';
import { pickFields } from '../../shared/fields.js';
import { carrierAccessOf } from './carrier-access.js';
import { lookupRates } from './rate-lookup.service.js';
import { createRate, deleteRate, updateRate } from './rates.service.js';
import { createZone, deleteZone, getZone, listZones, updateZone, type ZoneRules } from './zones.service.js';

const zoneRules = (deps: AppDeps): ZoneRules => ({ allowPrivateTargets: deps.config.allowPrivateNetworkTargets });

export const shippingHandlers = {
  listShippingZones: async ({ query, ctx }) => ({ status: 200, body: await listZones(ctx, query) }),
  createShippingZone: async ({ body, ctx, deps }) => {
    const zone = await createZone(ctx, body, zoneRules(deps));
    // The answer inlines `rates: []`; its ETag is the zone's current one, as GET answers it without expand.
    const { rates: _rates, ...current } = zone;
    return { status: 201, body: { data: zone }, headers: { ETag: entityTagOf(current) } };
  },
  getShippingZone: async ({ path, query, ctx }) => {
    const zone = await getZone(ctx, path.id, query.expand?.includes('rates') ?? false);
    return { status: 200, body: { data: pickFields(zone, query.fields) } };
  },
  updateShippingZone: async ({ path, body, ctx, deps }) => ({
    status: 200,
    body: { data: await updateZone(ctx, path.id, body, zoneRules(deps)) },
  }),
  deleteShippingZone: async ({ path, ctx }) => {
    await deleteZone(ctx, path.id);
    return { status: 204, body: undefined };
  },
  createShippingRate: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: await createRate(ctx, path.id, body) },
  }),
  updateShippingRate: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: await updateRate(ctx, path.id, body) },
  }),
  deleteShippingRate: async ({ path, ctx }) => {
    await deleteRate(ctx, path.id);
    return { status: 204, body: undefined };
  },
  lookupShippingRates: async ({ body, ctx, deps }) => ({
    status: 200,
    body: { data: await lookupRates(ctx, body, carrierAccessOf(deps)) },
  }),
} satisfies AreaHandlers<'shipping'>;
