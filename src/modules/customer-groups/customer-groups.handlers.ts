import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { listGroups } from './customer-groups.list.js';
import { toGroupResource } from './customer-groups.mappers.js';
import { createGroup, deleteGroup, getGroup, updateGroup, viewOf } from './customer-groups.service.js';
import { addMembers, removeMember } from './members.service.js';

export const customerGroupHandlers = {
  listCustomerGroups: async ({ query, ctx }) => ({ status: 200, body: await listGroups(ctx, query) }),
  createCustomerGroup: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toGroupResource(await viewOf(ctx, await createGroup(ctx, body), false)) },
  }),
  getCustomerGroup: async ({ path, query, ctx }) => {
    const view = await getGroup(ctx, path.id, query.expand?.includes('members') ?? false);
    return { status: 200, body: { data: pickFields(toGroupResource(view), query.fields) } };
  },
  updateCustomerGroup: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toGroupResource(await viewOf(ctx, await updateGroup(ctx, path.id, body), false)) },
  }),
  deleteCustomerGroup: async ({ path, ctx }) => {
    await deleteGroup(ctx, path.id);
    return { status: 204, body: undefined };
  },
  addCustomerGroupMembers: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toGroupResource(await viewOf(ctx, await addMembers(ctx, path.id, body.customer_ids), true)) },
  }),
  removeCustomerGroupMember: async ({ path, ctx }) => {
    await removeMember(ctx, path.id, path.customer_id);
    return { status: 204, body: undefined };
  },
} satisfies AreaHandlers<'customer-groups'>;
