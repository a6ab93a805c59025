import { expect } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';

type GroupCreate = components['schemas']['CustomerGroupCreate'];
export type GroupResource = components['schemas']['CustomerGroup'];
export type Condition = components['schemas']['CustomerGroupCondition'];

let counter = 0;

/** A customer group creation body with a unique name. */
export function buildGroup(overrides: Partial<GroupCreate> = {}): GroupCreate {
  counter += 1;
  return { name: `Group ${counter}`, ...overrides };
}

/** Creates a customer group through the API and returns it. */
export async function createGroup(api: CommerceClient, overrides: Partial<GroupCreate> = {}): Promise<GroupResource> {
  const { data, error, response } = await api.POST('/v1/customer-groups', { body: buildGroup(overrides) });
  expect(error).toBeUndefined();
  expect(response.status).toBe(201);
  return data!.data;
}

/** Creates an automatic group with these conditions. */
export const createAutomaticGroup = (
  api: CommerceClient,
  conditions: Condition[],
  condition_match: 'all' | 'any' = 'all',
) => createGroup(api, { type: 'automatic', conditions, condition_match });

/** The ids of the customers GET /v1/customers?group_id= lists (every page). */
export async function memberIds(api: CommerceClient, groupId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await api.GET('/v1/customers', {
      params: { query: { group_id: groupId, limit: 100, cursor } },
    });
    expect(error).toBeUndefined();
    ids.push(...data!.data.map((c) => c.id));
    cursor = data!.pagination.cursor ?? undefined;
  } while (cursor);
  return ids.sort();
}

/** The group as GET answers it (member_count included). */
export async function readGroup(api: CommerceClient, id: string, expand = false): Promise<GroupResource> {
  const { data, error } = await api.GET('/v1/customer-groups/{id}', {
    params: { path: { id }, query: expand ? { expand: ['members'] } : {} },
  });
  expect(error).toBeUndefined();
  return data!.data;
}
