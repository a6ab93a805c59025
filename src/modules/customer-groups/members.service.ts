import type { CustomerGroup } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { findGroup } from './customer-groups.service.js';

const AUTOMATIC = 'This group is automatic; its conditions decide its members.';

/**
 * Adds customers to a manual group, skipping those already in it. All or nothing: an ID that is not a
 * live customer of the project is 400 (naming every such ID) and nothing is added; an automatic group is 400.
 */
export async function addMembers(ctx: Ctx, id: string, customerIds: string[]): Promise<CustomerGroup> {
  return writeTx(ctx, {}, async (tx) => {
    const group = await findGroup(ctx, tx, id, true);
    if (group.type === 'automatic')
      throw new AppError('invalid_request', `${AUTOMATIC} Add customers to a manual group instead.`);
    const unique = [...new Set(customerIds)];
    const found = await tx.customer.findMany({
      where: { id: { in: unique }, projectId: ctx.project.id, deletedAt: null },
      select: { id: true },
    });
    const known = new Set(found.map((customer) => customer.id));
    const unknown = unique.filter((customerId) => !known.has(customerId));
    if (unknown.length > 0) {
      throw invalidField(
        'customer_ids',
        `No customer of this project has the ID${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; nothing was added.`,
      );
    }
    await tx.customerGroupMember.createMany({
      data: unique.map((customerId) => ({ groupId: id, customerId })),
      skipDuplicates: true,
    });
    return group;
  });
}

/** Removes a customer from a manual group (the customer stays); 404 when it is not in it, 400 for an automatic group. */
export async function removeMember(ctx: Ctx, id: string, customerId: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const group = await findGroup(ctx, tx, id, true);
    if (group.type === 'automatic')
      throw new AppError('invalid_request', `${AUTOMATIC} Change its conditions, or the customer, instead.`);
    const { count } = await tx.customerGroupMember.deleteMany({
      where: { groupId: id, customerId, customer: { deletedAt: null } },
    });
    if (count === 0) throw notFound('The customer is not in this group.');
  });
}
