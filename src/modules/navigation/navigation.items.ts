import type { components } from '../../generated/openapi.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';

type ItemInput = components['schemas']['NavigationItemInput'];
type ItemType = components['schemas']['NavigationItemType'];

/** An item as stored in the menu's `items` column: what was sent, with an id, children in order. */
export interface StoredItem {
  id: string;
  title: string;
  type: ItemType;
  target: string;
  items: StoredItem[];
}

// Three levels (an item, its children, theirs) is what storefront menus render (a bar, a drop-down, a column).
export const MAX_DEPTH = 3;
// Bounds the one JSON value a storefront reads per page view.
export const MAX_ITEMS = 250;

const ID_FORMS: Partial<Record<ItemType, RegExp>> = {
  collection: /^col_[0-9a-z]{26}$/,
  product: /^prod_[0-9a-z]{26}$/,
};
// No whitespace, control characters or backslashes (browsers read `/\host` as `//host`, another site).
const UNSAFE = /[\s\\]/;
const hasControl = (text: string) => [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

/** Why `target` is not a valid link of `type`, or null when it is. */
export function targetProblem(type: ItemType, target: string): string | null {
  const idForm = ID_FORMS[type];
  if (idForm) return idForm.test(target) ? null : `A ${type} item's target is a ${type} id.`;
  if (UNSAFE.test(target) || hasControl(target))
    return 'A link may not contain spaces, control characters or backslashes.';
  if (type === 'page') {
    return target.startsWith('/') && !target.startsWith('//')
      ? null
      : 'A page target is a path on the storefront starting with a single "/" (e.g. /pages/about).';
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'A url target is an absolute http or https URL (e.g. https://example.com/).';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `A url target must use http or https, not ${url.protocol.slice(0, -1)}.`;
  }
  return url.hostname ? null : 'A url target names a host.';
}

/**
 * The stored tree for `input` with new item ids, and the collections and products it links to. 400 on the
 * offending field when an item's target is not a valid link of its type, when the tree is deeper than
 * MAX_DEPTH levels or holds more than MAX_ITEMS items.
 */
export function buildItems(input: ItemInput[]): {
  items: StoredItem[];
  collectionIds: Map<string, string>;
  productIds: Map<string, string>;
} {
  const collectionIds = new Map<string, string>();
  const productIds = new Map<string, string>();
  let count = 0;
  const build = (items: ItemInput[], path: string, depth: number): StoredItem[] => {
    if (items.length > 0 && depth > MAX_DEPTH) {
      throw invalidField(path, `A menu holds at most ${MAX_DEPTH} levels of items; this list is level ${depth}.`);
    }
    return items.map((item, index) => {
      const field = `${path}[${index}]`;
      count += 1;
      if (count > MAX_ITEMS)
        throw new AppError('invalid_request', `A menu holds at most ${MAX_ITEMS} items.`, { field });
      const problem = targetProblem(item.type, item.target);
      if (problem) throw invalidField(`${field}.target`, problem);
      if (item.type === 'collection' && !collectionIds.has(item.target)) collectionIds.set(item.target, field);
      if (item.type === 'product' && !productIds.has(item.target)) productIds.set(item.target, field);
      return {
        id: newId('navi_'),
        title: item.title,
        type: item.type,
        target: item.target,
        items: build(item.items ?? [], `${field}.items`, depth + 1),
      };
    });
  };
  return { items: build(input, 'items', 1), collectionIds, productIds };
}
