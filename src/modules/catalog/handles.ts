/** A URL-friendly handle from a title: lowercase ASCII letters and digits joined by single hyphens. */
export function slugify(title: string, fallback: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 240)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/**
 * The first free handle for `base` among `taken` (handles equal to base or base-N): base itself, else
 * base-2, base-3, ... one past the highest suffix in use.
 */
export function nextHandle(base: string, taken: string[]): string {
  if (!taken.includes(base)) return base;
  const suffixes = taken.map((handle) => Number(handle.slice(base.length + 1))).filter((n) => Number.isInteger(n) && n >= 2);
  return `${base}-${Math.max(1, ...suffixes) + 1}`;
}
