import type { AreaHandlers } from '../../shared/contract.js';
import { createMenu, deleteMenu, getMenu, listMenus, updateMenu } from './navigation.service.js';

export const navigationHandlers = {
  listNavigationMenus: async ({ query, ctx }) => ({ status: 200, body: await listMenus(ctx, query) }),
  createNavigationMenu: async ({ body, ctx }) => ({ status: 201, body: { data: await createMenu(ctx, body) } }),
  getNavigationMenu: async ({ path, ctx }) => ({ status: 200, body: { data: await getMenu(ctx, path.id) } }),
  updateNavigationMenu: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: await updateMenu(ctx, path.id, body) },
  }),
  deleteNavigationMenu: async ({ path, ctx }) => {
    await deleteMenu(ctx, path.id);
    return { status: 204, body: undefined };
  },
} satisfies AreaHandlers<'navigation'>;
