import type { components } from '../../generated/openapi.js';
import type { NavigationMenu } from '../../generated/prisma/client.js';
import type { StoredItem } from './navigation.items.js';

export type NavigationMenuResource = components['schemas']['NavigationMenu'];
type NavigationItemResource = components['schemas']['NavigationItem'];

/** The current handles of the collections and products a menu links to (absent: deleted, or a product not active). */
export interface LinkedHandles {
  collections: Map<string, string>;
  products: Map<string, string>;
}

function toItem(item: StoredItem, handles: LinkedHandles): NavigationItemResource {
  const linked =
    item.type === 'collection' ? handles.collections : item.type === 'product' ? handles.products : undefined;
  return {
    id: item.id,
    title: item.title,
    type: item.type,
    target: item.target,
    handle: linked?.get(item.target) ?? null,
    items: item.items.map((child) => toItem(child, handles)),
  };
}

/** A menu as the API shows it: its tree with each collection or product item's current handle. */
export function toNavigationMenuResource(menu: NavigationMenu, handles: LinkedHandles): NavigationMenuResource {
  return {
    id: menu.id,
    title: menu.title,
    handle: menu.handle,
    items: (menu.items as unknown as StoredItem[]).map((item) => toItem(item, handles)),
    created_at: menu.createdAt.toISOString(),
    updated_at: menu.updatedAt.toISOString(),
  };
}

/** The collection and product ids the menus link to. */
export function linkedIds(menus: NavigationMenu[]): { collections: Set<string>; products: Set<string> } {
  const collections = new Set<string>();
  const products = new Set<string>();
  const walk = (items: StoredItem[]) => {
    for (const item of items) {
      if (item.type === 'collection') collections.add(item.target);
      if (item.type === 'product') products.add(item.target);
      walk(item.items);
    }
  };
  for (const menu of menus) walk(menu.items as unknown as StoredItem[]);
  return { collections, products };
}
