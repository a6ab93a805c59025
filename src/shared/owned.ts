import type { Ctx } from './context.js';
import { notFound } from './errors.js';

interface OwnedRow {
  projectId: string;
  deletedAt?: Date | null;
}

/**
 * A Prisma model delegate (`db.customer`, `tx.product`, ...) read by primary key. Rows with relations:
 * `{ findUnique: (args) => tx.product.findUnique({ ...args, include }) }`, which keeps Prisma's typing.
 */
interface ByIdDelegate<R> {
  findUnique(args: { where: { id: string } }): PromiseLike<R | null>;
}

/**
 * The row with this id when it belongs to the caller's project and is not soft-deleted; 404 with
 * `message` otherwise. Reads by primary key (Prisma's cheapest read) through `db` (ctx.db or a
 * transaction), then checks the tenant here, so a read by id cannot forget it.
 */
export async function findOwned<R extends OwnedRow>(
  ctx: Pick<Ctx, 'project'>,
  delegate: ByIdDelegate<R>,
  id: string,
  message: string,
): Promise<R> {
  const row = await delegate.findUnique({ where: { id } });
  if (!row || row.projectId !== ctx.project.id || row.deletedAt) throw notFound(message);
  return row;
}
