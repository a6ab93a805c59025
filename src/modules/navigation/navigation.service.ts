import type { Database, Tx } from '../../db/client.js';
import type { components, operations } from '../../generated/openapi.js';
import type { NavigationMenu, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { listPage, type SortColumns } from '../../shared/list-page.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { recordChange, recordEvent } from '../store-events/index.js';
import { buildItems } from './navigation.items.js';
import {
  linkedIds,
  toNavigationMenuResource,
  type LinkedHandles,
  type NavigationMenuResource,
} from './navigation.mappers.js';

type MenuCreate = components['schemas']['NavigationMenuCreate'];
type MenuUpdate = components['schemas']['NavigationMenuUpdate'];
type MenuListQuery = NonNullable<operations['listNavigationMenus']['parameters']['query']>;

const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another navigation menu already has this handle.' } };
const UPDATABLE_FIELDS = ['title', 'handle', 'items'] as const;
const SORTS: SortColumns<'listNavigationMenus'> = { created_at: [{ field: 'createdAt', kind: 'date' }] };
const MENU_ID = /^nav_[0-9a-z]{26}$/;

/** The menu of the project named by id or handle, optionally locked for the transaction; 404 otherwise. */
export async function findMenu(ctx: Ctx, db: Database | Tx, idOrHandle: string, lock = false): Promise<NavigationMenu> {
  const where = MENU_ID.test(idOrHandle)
    ? { id: idOrHandle, projectId: ctx.project.id }
    : { projectId: ctx.project.id, handle: idOrHandle };
  const found = await db.navigationMenu.findFirst({ where, select: { id: true } });
  if (!found) throw notFound('Navigation menu not found.');
  if (lock) await lockRows(db, 'navigation_menus', { projectId: ctx.project.id, ids: [found.id] });
  const menu = await db.navigationMenu.findUnique({ where: { id: found.id } });
  if (!menu) throw notFound('Navigation menu not found.');
  return menu;
}

/** The current handles of what the menus link to, two statements whatever the menus' size. */
async function linkedHandles(ctx: Ctx, db: Database | Tx, menus: NavigationMenu[]): Promise<LinkedHandles> {
  const ids = linkedIds(menus);
  const [collections, products] = await Promise.all([
    ids.collections.size === 0
      ? []
      : db.collection.findMany({
          where: { id: { in: [...ids.collections] }, projectId: ctx.project.id },
          select: { id: true, handle: true },
        }),
    ids.products.size === 0
      ? []
      : db.product.findMany({
          where: { id: { in: [...ids.products] }, projectId: ctx.project.id, deletedAt: null, status: 'active' },
          select: { id: true, handle: true },
        }),
  ]);
  return {
    collections: new Map(collections.map((row) => [row.id, row.handle])),
    products: new Map(products.map((row) => [row.id, row.handle])),
  };
}

/** The menus as the API shows them, their links resolved in the same read. */
export async function showMenus(
  ctx: Ctx,
  db: Database | Tx,
  menus: NavigationMenu[],
): Promise<NavigationMenuResource[]> {
  const handles = await linkedHandles(ctx, db, menus);
  return menus.map((menu) => toNavigationMenuResource(menu, handles));
}

/** The menu named by id or handle with its whole tree; 404 when the project has none such. */
export async function getMenu(ctx: Ctx, idOrHandle: string): Promise<NavigationMenuResource> {
  const [shown] = await showMenus(ctx, ctx.db, [await findMenu(ctx, ctx.db, idOrHandle)]);
  return shown;
}

/** A page of the project's menus with their trees. */
export async function listMenus(ctx: Ctx, query: MenuListQuery) {
  const page = await listPage(ctx, {
    model: ctx.db.navigationMenu,
    where: { projectId: ctx.project.id },
    query,
    sorts: SORTS,
    map: (menu: NavigationMenu) => menu,
  });
  return { ...page, data: await showMenus(ctx, ctx.db, page.data) };
}

/** The stored tree for `input`; 400 on an item whose collection or product is not one of the project's. */
async function checkedItems(ctx: Ctx, tx: Tx, input: NonNullable<MenuCreate['items']>) {
  const { items, collectionIds, productIds } = buildItems(input);
  const collections = await tx.collection.findMany({
    where: { id: { in: [...collectionIds.keys()] }, projectId: ctx.project.id },
    select: { id: true },
  });
  const products = await tx.product.findMany({
    where: { id: { in: [...productIds.keys()] }, projectId: ctx.project.id, deletedAt: null },
    select: { id: true },
  });
  const missing = (wanted: Map<string, string>, found: Array<{ id: string }>, kind: string) => {
    const have = new Set(found.map((row) => row.id));
    for (const [id, field] of wanted) {
      if (!have.has(id)) throw invalidField(`${field}.target`, `No ${kind} ${id} in this project.`);
    }
  };
  missing(collectionIds, collections, 'collection');
  missing(productIds, products, 'product');
  return items as unknown as Prisma.InputJsonValue;
}

/** Creates a menu (handle from the title unless sent; 409 when a sent handle is taken); records navigation.created. */
export async function createMenu(ctx: Ctx, input: MenuCreate): Promise<NavigationMenuResource> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const menu = await tx.navigationMenu.create({
      data: {
        id: newId('nav_'),
        projectId: ctx.project.id,
        title: input.title,
        handle: input.handle ?? (await allocateHandle(tx, ctx, 'navigation-menu', input.title)),
        items: await checkedItems(ctx, tx, input.items ?? []),
      },
    });
    const [shown] = await showMenus(ctx, tx, [menu]);
    await recordEvent(tx, ctx, {
      type: 'navigation.created',
      resourceType: 'navigation_menu',
      resourceId: menu.id,
      summary: `Navigation menu "${menu.title}" created`,
      payload: shown,
    });
    return shown;
  });
}

/** Applies the fields sent (`items` replaces the tree) and records navigation.updated with the changes; unchanged input writes nothing. */
export async function updateMenu(ctx: Ctx, idOrHandle: string, input: MenuUpdate): Promise<NavigationMenuResource> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const before = await findMenu(ctx, tx, idOrHandle, true);
    const [beforeShown] = await showMenus(ctx, tx, [before]);
    const items = input.items && (await checkedItems(ctx, tx, input.items));
    const sameTree = items === undefined || sameItems(before.items, items);
    if (
      sameTree &&
      (input.title ?? before.title) === before.title &&
      (input.handle ?? before.handle) === before.handle
    ) {
      return beforeShown;
    }
    const after = await tx.navigationMenu.update({
      where: { id: before.id },
      data: { title: input.title, handle: input.handle, ...(!sameTree && { items }) },
    });
    const [shown] = await showMenus(ctx, tx, [after]);
    await recordChange(tx, ctx, {
      type: 'navigation.updated',
      resourceType: 'navigation_menu',
      resourceId: after.id,
      label: `Navigation menu "${after.title}"`,
      before: beforeShown,
      after: shown,
      fields: UPDATABLE_FIELDS,
    });
    return shown;
  });
}

/** Whether two stored trees link the same things in the same order (item ids aside). */
function sameItems(a: unknown, b: unknown): boolean {
  const strip = (items: unknown): unknown =>
    (items as Array<{ title: string; type: string; target: string; items: unknown }>).map((item) => [
      item.title,
      item.type,
      item.target,
      strip(item.items),
    ]);
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** Deletes the menu for good (its handle is free again); records navigation.deleted with its last state. */
export async function deleteMenu(ctx: Ctx, idOrHandle: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const menu = await findMenu(ctx, tx, idOrHandle, true);
    const [shown] = await showMenus(ctx, tx, [menu]);
    await tx.navigationMenu.delete({ where: { id: menu.id } });
    await recordEvent(tx, ctx, {
      type: 'navigation.deleted',
      resourceType: 'navigation_menu',
      resourceId: menu.id,
      summary: `Navigation menu "${menu.title}" deleted`,
      payload: shown,
    });
  });
}
