import type { Tx } from '../../db/client.js';

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

/**
 * The first free handle for `source` among the project's `kind` (acme, acme-2, ...). Writers choosing a
 * handle from the same base wait for each other (a transaction-scoped advisory lock), so concurrent
 * creates with one title get distinct handles instead of colliding.
 */
export async function allocateHandle(
  tx: Tx,
  kind: 'product' | 'collection' | 'location',
  projectId: string,
  source: string,
  takenHandles: (base: string) => Promise<string[]>,
): Promise<string> {
  const base = slugify(source, kind);
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${kind}:${projectId}:${base}`}))`;
  const family = new RegExp(`^${base}(-\\d+)?$`);
  return nextHandle(base, (await takenHandles(base)).filter((handle) => family.test(handle)));
}
