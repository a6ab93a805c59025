import type { AreaHandlers } from '../../shared/contract.js';
import { listDiscounts, listPromotions } from './discounts.list.js';
import { toDiscountResource, toPromotionResource } from './discounts.mappers.js';
import {
  CODES,
  PROMOTIONS,
  createDiscount,
  deleteDiscount,
  findDiscount,
  updateDiscount,
} from './discounts.service.js';

export const discountHandlers = {
  listDiscounts: async ({ query, ctx }) => ({ status: 200, body: await listDiscounts(ctx, query) }),
  createDiscount: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toDiscountResource(await createDiscount(ctx, CODES, body)) },
  }),
  getDiscount: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toDiscountResource(await findDiscount(ctx, ctx.db, CODES, path.id)) },
  }),
  updateDiscount: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toDiscountResource(await updateDiscount(ctx, CODES, path.id, body)) },
  }),
  deleteDiscount: async ({ path, ctx }) => {
    await deleteDiscount(ctx, CODES, path.id);
    return { status: 204, body: undefined };
  },
  listPromotions: async ({ query, ctx }) => ({ status: 200, body: await listPromotions(ctx, query) }),
  createPromotion: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toPromotionResource(await createDiscount(ctx, PROMOTIONS, body)) },
  }),
  getPromotion: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toPromotionResource(await findDiscount(ctx, ctx.db, PROMOTIONS, path.id)) },
  }),
  updatePromotion: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toPromotionResource(await updateDiscount(ctx, PROMOTIONS, path.id, body)) },
  }),
  deletePromotion: async ({ path, ctx }) => {
    await deleteDiscount(ctx, PROMOTIONS, path.id);
    return { status: 204, body: undefined };
  },
} satisfies AreaHandlers<'discounts'>;
