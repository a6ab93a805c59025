import { Prisma } from '../generated/prisma/client.js';
import type pg from 'pg';
import type { Tx } from '../db/client.js';
import { inTransaction } from '../db/client-transaction.js';
import type { RowsOf, Step } from '../db/round-trip.js';
import type { Ctx } from './context.js';
import { conflictOn } from './errors.js';

/** Unique columns a write may collide on, each answered as 409 conflict on its field. */
export type Conflicts = Record<string, { field: string; message: string }>;

// Writes that lock rows (stock, per-project counters) queue behind each other under load: give them
// time to get a connection and to finish instead of Prisma's 2 s / 5 s defaults.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

/**
 * Runs `write` in one transaction; a unique violation on one of `conflicts` becomes 409 on its field.
 * Once it commits, this process's cached values of the project (list totals, search answers) are stale at once.
 */
export async function writeTx<T>(
  ctx: Pick<Ctx, 'db'> & Partial<Pick<Ctx, 'project' | 'caches'>>,
  conflicts: Conflicts,
  write: (tx: Tx) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.db.$transaction(write, TRANSACTION_OPTIONS);
  } catch (error) {
    throw conflictOn(error, conflicts);
  } finally {
    // Also after a failure: a commit whose answer was lost still changed the data.
    if (ctx.project) ctx.caches?.versions.projectWritten(ctx.project.id);
  }
}

/**
 * writeTx for a write made of prepared statements (src/db/prepared.ts): one transaction on one connection of
 * `pool` instead of Prisma's (with `opening`, BEGIN and those statements in one round trip: inTransaction); the
 * project's cached values are stale once it ends, as with writeTx.
 */
export async function writeOnConnection<T, const S extends readonly Step<unknown>[] = []>(
  ctx: Pick<Ctx, 'project' | 'caches'>,
  pool: pg.Pool,
  write: (client: pg.PoolClient, opened: RowsOf<S>) => Promise<T>,
  opening?: S,
): Promise<T> {
  try {
    return await inTransaction(pool, write, opening);
  } finally {
    ctx.caches?.versions.projectWritten(ctx.project.id);
  }
}

/** Tables whose rows services lock. */
export type LockableTable =
  | 'customers'
  | 'variants'
  | 'locations'
  | 'products'
  | 'customer_groups'
  | 'companies'
  | 'price_lists'
  | 'purchase_orders'
  | 'navigation_menus'
  | 'orders'
  | 'draft_orders'
  | 'checkouts'
  | 'shipping_zones'
  | 'shipping_rates';

/** Lockable tables whose rows are soft-deleted (`deleted_at`): the ones whose live rows can be locked all at once. */
type SoftDeletedTable = 'customers' | 'locations' | 'products' | 'customer_groups' | 'companies';

/**
 * Holds rows of the project of the given ids (FOR KEY SHARE, in id order) for the rest of the transaction: writers
 * that lock them with lockRows (a delete, a change of the default location) wait until it ends, other holders do
 * not. For a write that needs a row to stay as it was found, e.g. stock set at a location a delete would remove.
 */
export async function keepRows(
  tx: Tx,
  table: LockableTable,
  rows: { projectId: string; ids: string[] },
): Promise<void> {
  await lockIds(tx, table, rows, 'FOR KEY SHARE');
}

/** The project's rows of the given ids, locked with `strength` in id order (nothing for no ids). */
async function lockIds(
  tx: Tx,
  table: LockableTable,
  rows: { projectId: string; ids: string[] },
  strength: 'FOR UPDATE' | 'FOR KEY SHARE',
): Promise<void> {
  if (rows.ids.length === 0) return;
  const ids = [...new Set(rows.ids)].sort();
  await tx.$queryRaw`SELECT id FROM ${Prisma.raw(table)} WHERE project_id = ${rows.projectId} AND id = ANY(${ids}) ORDER BY id ${Prisma.raw(strength)}`;
}

/**
 * Locks rows of the project for the rest of the transaction, always in id order so concurrent writers cannot
 * deadlock: those of the given ids (another project's id locks nothing, so no request waits on another project's
 * writes), or every live row of the project (soft-deleted tables only).
 */
export async function lockRows(tx: Tx, table: LockableTable, rows: { projectId: string; ids: string[] }): Promise<void>;
export async function lockRows(tx: Tx, table: SoftDeletedTable, rows: { projectId: string }): Promise<void>;
export async function lockRows(
  tx: Tx,
  table: LockableTable,
  rows: { projectId: string; ids?: string[] },
): Promise<void> {
  if (rows.ids) return lockIds(tx, table, { projectId: rows.projectId, ids: rows.ids }, 'FOR UPDATE');
  await tx.$queryRaw`SELECT id FROM ${Prisma.raw(table)} WHERE project_id = ${rows.projectId} AND deleted_at IS NULL ORDER BY id FOR UPDATE`;
}
