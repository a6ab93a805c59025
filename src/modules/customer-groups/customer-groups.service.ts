import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { CustomerGroup, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { validateConditions, type Condition } from './conditions.js';
import { groupViews, type GroupView } from './membership.js';
import { mergeMetadata } from './metadata.js';

type GroupCreate = components['schemas']['CustomerGroupCreate'];
type GroupUpdate = components['schemas']['CustomerGroupUpdate'];
type GroupType = components['schemas']['CustomerGroupType'];

const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another customer group already has this handle.' } };

/** The live group of the project; 404 "Customer group not found." otherwise. With `lock`, its row stays locked for the transaction. */
export async function findGroup(ctx: Ctx, db: Database | Tx, id: string, lock = false): Promise<CustomerGroup> {
  // Serialises membership changes, metadata merges and the delete of one group.
  if (lock) await lockRows(db, 'customer_groups', { projectId: ctx.project.id, ids: [id] });
  return findOwned(ctx, db.customerGroup, id, 'Customer group not found.');
}

/** The group with its member count, and its first members when asked for. */
export async function getGroup(ctx: Ctx, id: string, withMembers: boolean): Promise<GroupView> {
  return viewOf(ctx, await findGroup(ctx, ctx.db, id), withMembers);
}

/** The group as the API shows it (member count, first members when asked for). */
export async function viewOf(ctx: Ctx, group: CustomerGroup, withMembers: boolean): Promise<GroupView> {
  const [view] = await groupViews(ctx, [group], withMembers);
  return view;
}

/**
 * The conditions to store for a group of `type`: validated against the field table and normalized.
 * Manual groups ignore conditions (validated, kept as []); automatic groups need 1-20.
 */
function storedConditions(type: GroupType, conditions: Condition[] | undefined): Condition[] {
  const checked = validateConditions(conditions ?? []);
  if ('problems' in checked) {
    const [first, ...more] = checked.problems;
    if (more.length === 0) throw invalidField(first.field, first.message);
    throw new AppError('validation_error', `${checked.problems.length} fields are invalid.`, {
      details: checked.problems,
    });
  }
  if (type === 'manual') return [];
  if (checked.conditions.length === 0)
    throw invalidField('conditions', 'An automatic group needs at least one condition (at most 20).');
  return checked.conditions;
}

/** Creates a group; without a handle one is generated from the name (unique per project); 409 when a sent handle is taken. */
export async function createGroup(ctx: Ctx, input: GroupCreate): Promise<CustomerGroup> {
  const type = input.type ?? 'manual';
  const conditions = storedConditions(type, input.conditions);
  return writeTx(ctx, HANDLE_TAKEN, async (tx) =>
    tx.customerGroup.create({
      data: {
        id: newId('cg_'),
        projectId: ctx.project.id,
        name: input.name,
        sortName: input.name.toLowerCase(),
        handle: input.handle ?? (await allocateHandle(tx, ctx, 'customer-group', input.name)),
        description: input.description ?? null,
        type,
        conditions: conditions,
        conditionMatch: input.condition_match ?? 'all',
        activePriceKey: input.active_price_key ?? null,
        metadata: input.metadata ?? {},
      },
    }),
  );
}

/** Applies the fields sent: conditions replaced (validated for the group's type), metadata merged; 409 when a sent handle is taken. */
export async function updateGroup(ctx: Ctx, id: string, input: GroupUpdate): Promise<CustomerGroup> {
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const group = await findGroup(ctx, tx, id, true);
    const conditions =
      input.conditions === undefined ? undefined : storedConditions(group.type as GroupType, input.conditions);
    return tx.customerGroup.update({
      where: { id },
      data: {
        name: input.name,
        sortName: input.name?.toLowerCase(),
        handle: input.handle,
        description: input.description,
        conditions: conditions,
        conditionMatch: input.condition_match,
        activePriceKey: input.active_price_key,
        metadata:
          input.metadata === undefined
            ? undefined
            : (mergeMetadata(group.metadata, input.metadata) as Prisma.InputJsonValue),
      },
    });
  });
}

/** Soft delete: the group disappears and frees its handle; its memberships go, its customers stay. */
export async function deleteGroup(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findGroup(ctx, tx, id, true);
    await tx.customerGroupMember.deleteMany({ where: { groupId: id } });
    await tx.customerGroup.update({ where: { id }, data: { deletedAt: new Date() } });
  });
}
