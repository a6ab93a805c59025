import type pg from 'pg';
import { poolOf } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import type { IndexBound, IndexPatch, ProjectIndexes } from '../../shared/project-indexes.js';
import {
  PRODUCT_INDEX_TABLES,
  buildChangedProducts,
  buildProductIndex,
  positionOf,
  type ProductIndex,
} from './product-index.js';

/**
 * A project's product index as searches read it: the index built last (`base`), and the products changed since:
 * their own index as they are now (`delta`; a deleted product is in neither), and their positions in `base`
 * (`gone`), which answers leave out. A write applies its changed products here (IndexPatch) instead of a rebuild;
 * past COMPACT_AT changes a build replaces it in the background, served until then.
 */
export interface ProductSegments {
  bytes: number;
  base: ProductIndex;
  delta: ProductIndex | null;
  /** Positions in `base` of the changed products, ascending. */
  gone: Int32Array;
  /** Ids of the products changed since `base` was built. */
  changed: ReadonlySet<string>;
}

/** Changed products a project's segments hold before a build replaces them: a tenth of its products, between 64 and 1,000. */
const compactAt = (base: ProductIndex) => Math.max(64, Math.min(1_000, base.ids.length / 10));
/** Past twice that, the changes are not applied: a build serves better (searches read the statements meanwhile). */
const MAX_CHANGED_FACTOR = 2;

const segmentsOf = (base: ProductIndex): ProductSegments => ({
  bytes: base.bytes,
  base,
  delta: null,
  gone: new Int32Array(0),
  changed: new Set(),
});

/** How a project's segments take the products a write changed (ProjectIndexes' IndexPatch). */
function productPatch(pool: pg.Pool, projectId: string, bound: IndexBound): IndexPatch<ProductSegments | null> {
  return {
    table: 'search_products',
    async apply(segments, rows) {
      if (segments === null) return null;
      const { base } = segments;
      const changed = new Set([...segments.changed, ...rows]);
      if (changed.size > compactAt(base) * MAX_CHANGED_FACTOR) return null;
      const ids = [...changed];
      const delta = await buildChangedProducts(pool, projectId, ids, base, bound);
      if (delta === null) return null;
      const gone = Int32Array.from(
        ids.map((id) => positionOf(base, id)).filter((position) => position !== undefined),
      ).sort();
      return {
        bytes: base.bytes + delta.bytes + gone.byteLength + changed.size * 64,
        base,
        delta: delta.ids.length > 0 ? delta : null,
        gone,
        changed,
      };
    },
    compact: (segments) => segments !== null && segments.changed.size >= compactAt(segments.base),
  };
}

const PRODUCT_INDEX_WAIT_MS = 50;

/** The process's product indexes and how the project's is built and patched; undefined without them. */
function projectIndexOf(ctx: Ctx) {
  const indexes = ctx.caches?.productIndexes as ProjectIndexes<ProductSegments | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  const projectId = ctx.project.id;
  const bound = indexes.boundFor(projectId);
  const build = async () => {
    const base = await buildProductIndex(pool, projectId, bound);
    return base && segmentsOf(base);
  };
  return { indexes, projectId, build, patch: productPatch(pool, projectId, bound) };
}

/**
 * The project's product index when it is exact now (read from the database this request reads from), waiting up
 * to 50 ms for this process's writes to be synced or a write's changed products to be applied; otherwise
 * undefined, and it is being built for the requests to come.
 */
export async function productIndexOf(ctx: Ctx): Promise<ProductSegments | undefined> {
  const of = projectIndexOf(ctx);
  if (!of) return undefined;
  const { indexes, projectId, build, patch } = of;
  const segments = await indexes.waitingGet(
    projectId,
    'products',
    PRODUCT_INDEX_TABLES,
    build,
    patch,
    PRODUCT_INDEX_WAIT_MS,
  );
  return segments ?? undefined;
}

/** Starts applying a write's changed products to the project's index, if it is held and waits for them (ProjectIndexes.refresh). */
export function refreshProductIndex(ctx: Ctx): void {
  const of = projectIndexOf(ctx);
  of?.indexes.refresh(of.projectId, 'products', PRODUCT_INDEX_TABLES, of.build, of.patch);
}

/** Builds the project's product index now when it is not exact (or applies its changed products), and returns it (warm-up, tests). */
export async function productIndexReady(ctx: Ctx): Promise<ProductSegments | undefined> {
  const of = projectIndexOf(ctx);
  if (!of) return undefined;
  return (await of.indexes.ready(of.projectId, 'products', PRODUCT_INDEX_TABLES, of.build, of.patch)) ?? undefined;
}
