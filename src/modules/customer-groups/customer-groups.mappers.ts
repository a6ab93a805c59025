import type { components } from '../../generated/openapi.js';
import type { GroupView, MemberRow } from './membership.js';
import { conditionsOf } from './membership.js';

type Schemas = components['schemas'];
export type GroupResource = Schemas['CustomerGroup'];
type MemberResource = Schemas['CustomerGroupMember'];

const toMemberResource = (member: MemberRow): MemberResource => ({
  id: member.id,
  email: member.email,
  first_name: member.firstName,
  last_name: member.lastName,
});

/** A customer group as the API shows it; members only when they were loaded (expand=members). */
export function toGroupResource(view: GroupView): GroupResource {
  return {
    id: view.id,
    name: view.name,
    handle: view.handle,
    description: view.description,
    type: view.type as GroupResource['type'],
    // Rebuilt so every condition reads field, operator, value (jsonb stores keys in its own order).
    conditions: conditionsOf(view).map(({ field, operator, value }) => ({ field, operator, value })),
    condition_match: view.conditionMatch as GroupResource['condition_match'],
    active_price_key: view.activePriceKey,
    member_count: view.memberCount,
    metadata: view.metadata as Record<string, unknown>,
    ...(view.members && { members: view.members.map(toMemberResource) }),
    created_at: view.createdAt.toISOString(),
    updated_at: view.updatedAt.toISOString(),
  };
}
