import type { AreaHandlers } from '../../shared/contract.js';
import { toInventoryLevelResource, toVariantLevelResource } from './inventory.mappers.js';
import { listVariantLevels, setInventoryLevel } from './inventory.service.js';

export const inventoryHandlers = {
  setInventoryLevel: async ({ body, ctx }) => ({
    status: 200,
    body: { data: toVariantLevelResource(await setInventoryLevel(ctx, body)) },
  }),
  listVariantInventoryLevels: async ({ path, ctx }) => ({
    status: 200,
    body: { data: (await listVariantLevels(ctx, path.id)).map(toInventoryLevelResource) },
  }),
} satisfies AreaHandlers<'inventory'>;
