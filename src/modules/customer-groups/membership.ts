import type { Database, Tx } from '../../db/client.js';
import type { CustomerGroup, Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import {
  conditionsWhere,
  meetsConditions,
  type Condition,
  type ConditionMatch,
  type CustomerFacts,
} from './conditions.js';

/** How many members `expand=members` inlines per group; member_count counts them all. */
export const EXPANDED_MEMBERS = 100;

export interface MemberRow {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}

/** A group as the API shows it: the row, its member count and, when expanded, its first members. */
export type GroupView = CustomerGroup & { memberCount: number; members?: MemberRow[] };

type GroupRule = Pick<CustomerGroup, 'id' | 'projectId' | 'type' | 'conditions' | 'conditionMatch'>;

/** The stored conditions of a group (validated when written). */
export const conditionsOf = (group: Pick<CustomerGroup, 'conditions'>) => group.conditions as unknown as Condition[];

/**
 * The customers that are members of the group now, as a Prisma filter: live customers of its project that
 * were added to it (manual) or that meet its conditions (automatic). Computed when read, so membership
 * follows every change to customers, their addresses and their orders without any job.
 */
export function membersWhere(group: GroupRule): Prisma.CustomerWhereInput {
  const members: Prisma.CustomerWhereInput =
    group.type === 'automatic'
      ? conditionsWhere(conditionsOf(group), group.conditionMatch as ConditionMatch)
      : { groupMemberships: { some: { groupId: group.id } } };
  return { projectId: group.projectId, deletedAt: null, AND: [members] };
}

const MEMBER_FIELDS = { id: true, email: true, firstName: true, lastName: true } as const;

/** Up to EXPANDED_MEMBERS members, the most recent first: last added (manual), newest customers (automatic). */
export async function firstMembers(db: Database | Tx, group: GroupRule): Promise<MemberRow[]> {
  if (group.type === 'automatic') {
    return db.customer.findMany({
      where: membersWhere(group),
      select: MEMBER_FIELDS,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: EXPANDED_MEMBERS,
    });
  }
  const rows = await db.customerGroupMember.findMany({
    where: { groupId: group.id, customer: { deletedAt: null } },
    orderBy: [{ createdAt: 'desc' }, { customerId: 'desc' }],
    take: EXPANDED_MEMBERS,
    include: { customer: { select: MEMBER_FIELDS } },
  });
  return rows.map((row) => row.customer);
}

/** The groups with their member counts (one indexed count per group, run side by side) and, when asked for, first members. */
export async function groupViews(
  ctx: Pick<Ctx, 'db'>,
  groups: CustomerGroup[],
  withMembers: boolean,
): Promise<GroupView[]> {
  return Promise.all(
    groups.map(async (group) => {
      const [memberCount, members] = await Promise.all([
        ctx.db.customer.count({ where: membersWhere(group) }),
        withMembers ? firstMembers(ctx.db, group) : undefined,
      ]);
      return { ...group, memberCount, ...(members && { members }) };
    }),
  );
}

/** Filter for GET /v1/customers?group_id=: the group's members; 400 naming group_id when it is not a live group of the project. */
export async function groupMembersWhere(ctx: Ctx, groupId: string): Promise<Prisma.CustomerWhereInput> {
  const group = await ctx.db.customerGroup.findFirst({
    where: { id: groupId, projectId: ctx.project.id, deletedAt: null },
  });
  if (!group) throw invalidField('group_id', 'group_id does not name a customer group of this project.');
  return membersWhere(group);
}

/**
 * Filter for GET /v1/customer-groups?customer_id=: the groups the customer is in now. Automatic groups are
 * decided in memory from the same condition definitions as membersWhere; 400 naming customer_id when it is
 * not a live customer of the project.
 */
export async function groupsOfCustomerWhere(ctx: Ctx, customerId: string): Promise<Prisma.CustomerGroupWhereInput> {
  const customer = await ctx.db.customer.findFirst({
    where: { id: customerId, projectId: ctx.project.id, deletedAt: null },
    include: { addresses: { select: { city: true, country: true } } },
  });
  if (!customer) throw invalidField('customer_id', 'customer_id does not name a customer of this project.');
  const automatic = await ctx.db.customerGroup.findMany({
    where: { projectId: ctx.project.id, deletedAt: null, type: 'automatic' },
    select: { id: true, conditions: true, conditionMatch: true },
  });
  const ids = automatic
    .filter((group) => meetsConditions(customer, conditionsOf(group), group.conditionMatch as ConditionMatch))
    .map((group) => group.id);
  return { OR: [{ id: { in: ids } }, { members: { some: { customerId, customer: { deletedAt: null } } } }] };
}

/**
 * The active_price_key of each live group of the customer's project that has one and that the customer is in
 * now: manual groups it was added to, automatic groups whose conditions it meets (decided in memory from the
 * facts given, as groupsOfCustomerWhere does). One query.
 */
export async function groupPriceKeys(
  db: Database | Tx,
  customer: CustomerFacts & { id: string; projectId: string },
): Promise<string[]> {
  const groups = await db.customerGroup.findMany({
    where: {
      projectId: customer.projectId,
      deletedAt: null,
      activePriceKey: { not: null },
      OR: [{ type: 'automatic' }, { members: { some: { customerId: customer.id } } }],
    },
    select: { type: true, conditions: true, conditionMatch: true, activePriceKey: true },
  });
  return groups
    .filter(
      (group) =>
        group.type !== 'automatic' ||
        meetsConditions(customer, conditionsOf(group), group.conditionMatch as ConditionMatch),
    )
    .map((group) => group.activePriceKey!);
}

/**
 * The ids of the live groups of the project the live customer belongs to now: manual groups it was added to and
 * automatic groups whose conditions it meets; none for an unknown or deleted customer.
 */
export async function customerGroupIds(db: Database | Tx, projectId: string, customerId: string): Promise<string[]> {
  const customer = await db.customer.findFirst({
    where: { id: customerId, projectId, deletedAt: null },
    include: { addresses: { select: { city: true, country: true } } },
  });
  if (!customer) return [];
  const groups = await db.customerGroup.findMany({
    where: {
      projectId,
      deletedAt: null,
      OR: [{ type: 'automatic' }, { members: { some: { customerId } } }],
    },
    select: { id: true, type: true, conditions: true, conditionMatch: true },
  });
  return groups
    .filter(
      (group) =>
        group.type !== 'automatic' ||
        meetsConditions(customer, conditionsOf(group), group.conditionMatch as ConditionMatch),
    )
    .map((group) => group.id);
}
