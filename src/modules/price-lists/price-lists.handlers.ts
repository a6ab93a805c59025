import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { listPriceLists } from './price-lists.list.js';
import { toPriceListPriceResource, toPriceListResource } from './price-lists.mappers.js';
import { createPriceList, deletePriceList, getPriceList, updatePriceList } from './price-lists.service.js';
import { listPriceListPrices, setPriceListPrices } from './prices.service.js';

export const priceListHandlers = {
  listPriceLists: async ({ query, ctx }) => ({ status: 200, body: await listPriceLists(ctx, query) }),
  createPriceList: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toPriceListResource(await createPriceList(ctx, body)) },
  }),
  getPriceList: async ({ path, query, ctx }) => ({
    status: 200,
    body: { data: pickFields(toPriceListResource(await getPriceList(ctx, path.id)), query.fields) },
  }),
  updatePriceList: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toPriceListResource(await updatePriceList(ctx, path.id, body)) },
  }),
  deletePriceList: async ({ path, ctx }) => {
    await deletePriceList(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listPriceListPrices: async ({ path, query, ctx }) => ({
    status: 200,
    body: await listPriceListPrices(ctx, path.id, query),
  }),
  setPriceListPrices: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: (await setPriceListPrices(ctx, path.id, body.prices)).map(toPriceListPriceResource) },
  }),
} satisfies AreaHandlers<'price-lists'>;
