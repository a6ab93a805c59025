import { nextHandle, slugify } from '../../shared/handles.js';

export const MAX_SLUG_LENGTH = 50;
// Room for "-" and a suffix of up to five digits when the base is taken.
const MAX_SUFFIXED_BASE = MAX_SLUG_LENGTH - 6;

const cut = (slug: string, length: number) => slug.slice(0, length).replace(/-+$/, '');

/**
 * The slug generated from a label: lowercase letters and digits joined by hyphens, at most 50 characters
 * (`fallback` when the label has no such characters); when `taken` has it, the first free `base-2`,
 * `base-3`, ... (one past the highest suffix in use).
 */
export function generatedSlug(label: string, taken: readonly string[], fallback: string): string {
  const slug = cut(slugify(label, fallback), MAX_SLUG_LENGTH) || fallback;
  if (!taken.includes(slug)) return slug;
  const base = cut(slug, MAX_SUFFIXED_BASE);
  const family = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(-\\d+)?$`);
  return nextHandle(
    base,
    taken.filter((s) => family.test(s)),
  );
}
