import type { Tx } from '../db/client.js';
import type { Ctx } from './context.js';

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
  const suffixes = taken
    .map((handle) => Number(handle.slice(base.length + 1)))
    .filter((n) => Number.isInteger(n) && n >= 2);
  return `${base}-${Math.max(1, ...suffixes) + 1}`;
}

/** Models with a per-project unique handle. */
export type HandleModel = 'product' | 'collection' | 'location' | 'customer-group' | 'company' | 'navigation-menu';

async function takenHandles(tx: Tx, model: HandleModel, projectId: string, base: string): Promise<string[]> {
  const where = { projectId, handle: { startsWith: base } };
  const select = { handle: true } as const;
  switch (model) {
    // A deleted product frees its handle; deleted locations get a mangled handle; collections are deleted for real.
    case 'product':
      return (await tx.product.findMany({ where: { ...where, deletedAt: null }, select })).map((row) => row.handle);
    case 'collection':
      return (await tx.collection.findMany({ where, select })).map((row) => row.handle);
    case 'location':
      return (await tx.location.findMany({ where, select })).map((row) => row.handle);
    // Deleted groups and companies free their handles.
    case 'customer-group':
      return (await tx.customerGroup.findMany({ where: { ...where, deletedAt: null }, select })).map(
        (row) => row.handle,
      );
    case 'company':
      return (await tx.company.findMany({ where: { ...where, deletedAt: null }, select })).map((row) => row.handle);
    // Menus are deleted for real.
    case 'navigation-menu':
      return (await tx.navigationMenu.findMany({ where, select })).map((row) => row.handle);
  }
}

/**
 * The first free handle for `source` among the project's rows of `model` (acme, acme-2, ...). Writers
 * choosing a handle from the same base wait for each other (a transaction-scoped advisory lock), so
 * concurrent creates with one title get distinct handles instead of colliding.
 */
export async function allocateHandle(
  tx: Tx,
  ctx: Pick<Ctx, 'project'>,
  model: HandleModel,
  source: string,
): Promise<string> {
  const projectId = ctx.project.id;
  const base = slugify(source, model);
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${model}:${projectId}:${base}`}))`;
  const family = new RegExp(`^${base}(-\\d+)?$`);
  return nextHandle(
    base,
    (await takenHandles(tx, model, projectId, base)).filter((handle) => family.test(handle)),
  );
}
