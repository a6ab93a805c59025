import { describe, expect, test } from '@jest/globals';
import type { operations } from '@commerce-api/sdk';
import { buildGroup, createGroup, readGroup } from '../../factories/customer-group.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

type ListQuery = NonNullable<operations['listCustomerGroups']['parameters']['query']>;

const store = useStore();
const list = async (query: ListQuery) => {
  const { data, error, response } = await store.api.GET('/v1/customer-groups', { params: { query } });
  if (response.status !== 200) throw new Error(JSON.stringify(error));
  return data!;
};

describe('createCustomerGroup', () => {
  test('defaults: manual, no conditions, condition_match all, no members, handle from the name', async () => {
    const group = await createGroup(store.api, { name: 'Wholesale Buyers' });
    expect(group).toEqual({
      id: expect.stringMatching(/^cg_[0-9a-z]{26}$/),
      name: 'Wholesale Buyers',
      handle: 'wholesale-buyers',
      description: null,
      type: 'manual',
      conditions: [],
      condition_match: 'all',
      active_price_key: null,
      member_count: 0,
      metadata: {},
      created_at: expect.any(String),
      updated_at: group.created_at,
    });
  });

  test('every field is stored and returned', async () => {
    const group = await createGroup(store.api, {
      name: 'VIP',
      handle: 'vip-tier',
      description: 'd'.repeat(5000),
      type: 'automatic',
      conditions: [{ field: 'total_spent', operator: 'more_than', value: 10000 }],
      condition_match: 'any',
      active_price_key: 'p'.repeat(50),
      metadata: { segment: 'top' },
    });
    expect(group).toMatchObject({
      handle: 'vip-tier',
      type: 'automatic',
      condition_match: 'any',
      active_price_key: 'p'.repeat(50),
      metadata: { segment: 'top' },
      conditions: [{ field: 'total_spent', operator: 'more_than', value: 10000 }],
    });
    expect(group.description).toHaveLength(5000);
  });

  test('generated handles are unique per project: a taken one gets -2, -3', async () => {
    const handles = [];
    for (let i = 0; i < 3; i++) handles.push((await createGroup(store.api, { name: 'Café Regulars!' })).handle);
    expect(handles).toEqual(['cafe-regulars', 'cafe-regulars-2', 'cafe-regulars-3']);
    expect((await createGroup(store.api, { name: '!!!' })).handle).toMatch(/^customer-group(-\d+)?$/);
  });

  test('concurrent creates with one name get distinct handles', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => store.api.POST('/v1/customer-groups', { body: { name: 'Rush Hour' } })),
    );
    expect(answers.map((a) => a.response.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => a.data!.data.handle)).size).toBe(6);
  });

  test('a sent handle must match ^[a-z0-9]+(?:-[a-z0-9]+)*$ (max 255)', async () => {
    for (const handle of ['Has Caps', 'under_score', 'double--dash', '-lead', 'trail-', '', 'a'.repeat(256)]) {
      const { error, response } = await store.api.POST('/v1/customer-groups', { body: buildGroup({ handle }) });
      expect([handle, response.status]).toEqual([handle, 400]);
      expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'handle' });
    }
    expect((await createGroup(store.api, { handle: 'a'.repeat(255) })).handle).toHaveLength(255);
  });

  test('a sent handle that is taken is 409 on handle', async () => {
    await createGroup(store.api, { handle: 'taken-handle' });
    const { error, response } = await store.api.POST('/v1/customer-groups', {
      body: buildGroup({ handle: 'taken-handle' }),
    });
    expect(response.status).toBe(409);
    expect(error).toEqual({
      error: { code: 'conflict', message: 'Another customer group already has this handle.', field: 'handle' },
    });
  });

  test('handles are per project', async () => {
    await createGroup(store.api, { handle: 'per-project' });
    const other = await createProject(store.app);
    const api = store.app.client(other.keys.secret_test.token);
    expect((await createGroup(api, { handle: 'per-project' })).handle).toBe('per-project');
  });

  test.each([
    ['name', { name: '' }],
    ['name', { name: '   ' }],
    ['name', { name: 'n'.repeat(256) }],
    ['description', { description: 'd'.repeat(5001) }],
    ['type', { type: 'smart' }],
    ['condition_match', { condition_match: 'some' }],
    ['active_price_key', { active_price_key: 'k'.repeat(51) }],
    ['active_price_key', { active_price_key: '' }],
    ['metadata', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
    ['member_count', { member_count: 3 }],
  ])('an invalid %s answers 400 naming it', async (field, overrides) => {
    const { error, response } = await store.api.POST('/v1/customer-groups', {
      body: { ...buildGroup(), ...overrides } as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('name is required', async () => {
    const { error } = await store.api.POST('/v1/customer-groups', { body: {} as never });
    expect(error!.error).toEqual({ code: 'invalid_request', message: 'name is required.', field: 'name' });
  });

  test('an automatic group needs 1-20 conditions', async () => {
    const none = await store.api.POST('/v1/customer-groups', { body: buildGroup({ type: 'automatic' }) });
    expect(none.response.status).toBe(400);
    expect(none.error!.error).toEqual({
      code: 'invalid_request',
      message: 'An automatic group needs at least one condition (at most 20).',
      field: 'conditions',
    });
    const condition = { field: 'order_count', operator: 'more_than', value: 1 } as const;
    const tooMany = await store.api.POST('/v1/customer-groups', {
      body: buildGroup({ type: 'automatic', conditions: Array(21).fill(condition) }),
    });
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.error!.error).toMatchObject({
      field: 'conditions',
      message: 'conditions must have at most 20 items.',
    });
    expect(
      (await createGroup(store.api, { type: 'automatic', conditions: Array(20).fill(condition) })).conditions,
    ).toHaveLength(20);
  });

  test("conditions are checked against the field table: the kind's operators, the value's type", async () => {
    const cases = [
      [
        { field: 'tag', operator: 'more_than', value: 'vip' },
        'conditions[0].operator',
        'conditions[0].operator must be is_same_as or is_not for tag (a text field).',
      ],
      [
        { field: 'total_spent', operator: 'is_same_as', value: 5 },
        'conditions[0].operator',
        'conditions[0].operator must be more_than or less_than for total_spent (a numeric field).',
      ],
      [
        { field: 'first_order_date', operator: 'more_than', value: '2026-01-01' },
        'conditions[0].operator',
        'conditions[0].operator must be is_before or is_after for first_order_date (a date field).',
      ],
      [
        { field: 'total_spent', operator: 'more_than', value: '10000' },
        'conditions[0].value',
        'conditions[0].value must be a whole number from 0 to 100000000000 for total_spent.',
      ],
      [
        { field: 'order_count', operator: 'less_than', value: 1.5 },
        'conditions[0].value',
        'conditions[0].value must be a whole number from 0 to 2147483647 for order_count.',
      ],
      [
        { field: 'tag', operator: 'is_same_as', value: 7 },
        'conditions[0].value',
        'conditions[0].value must be a string for tag.',
      ],
      [
        { field: 'last_order_date', operator: 'is_after', value: '2026-02-30' },
        'conditions[0].value',
        'conditions[0].value must be an ISO 8601 date (YYYY-MM-DD) for last_order_date.',
      ],
      [
        { field: 'status', operator: 'is_same_as', value: 'archived' },
        'conditions[0].value',
        'conditions[0].value must be active or inactive for status.',
      ],
      [
        { field: 'country', operator: 'is_not', value: 'Germany' },
        'conditions[0].value',
        'conditions[0].value must be a 2-letter ISO 3166-1 country code such as DE for country.',
      ],
    ] as const;
    for (const [condition, field, message] of cases) {
      const { error, response } = await store.api.POST('/v1/customer-groups', {
        body: buildGroup({ type: 'automatic', conditions: [condition as never] }),
      });
      expect(response.status).toBe(400);
      expect(error!.error).toEqual({ code: 'invalid_request', message, field });
    }
  });

  test('unknown fields and operators, and a missing value, are 400 from the contract', async () => {
    for (const [condition, field] of [
      [{ field: 'email', operator: 'is_same_as', value: 'x' }, 'conditions[0].field'],
      [{ field: 'tag', operator: 'contains', value: 'x' }, 'conditions[0].operator'],
      [{ field: 'tag', operator: 'is_same_as' }, 'conditions[0].value'],
      [{ field: 'tag', operator: 'is_same_as', value: true }, 'conditions[0].value'],
      [{ field: 'tag', operator: 'is_same_as', value: 'x', extra: 1 }, 'conditions[0].extra'],
    ] as const) {
      const { error, response } = await store.api.POST('/v1/customer-groups', {
        body: buildGroup({ type: 'automatic', conditions: [condition as never] }),
      });
      expect(response.status).toBe(400);
      expect(error!.error).toMatchObject({ code: 'invalid_request', field });
    }
  });

  test('several invalid conditions answer validation_error with one detail each', async () => {
    const { error } = await store.api.POST('/v1/customer-groups', {
      body: buildGroup({
        type: 'automatic',
        conditions: [
          { field: 'tag', operator: 'is_same_as', value: 'ok' },
          { field: 'order_count', operator: 'is_before', value: 1 },
          { field: 'city', operator: 'is_same_as', value: '' },
        ],
      }),
    });
    expect(error!.error).toEqual({
      code: 'validation_error',
      message: '2 fields are invalid.',
      details: [
        {
          field: 'conditions[1].operator',
          message: 'conditions[1].operator must be more_than or less_than for order_count (a numeric field).',
        },
        { field: 'conditions[2].value', message: 'conditions[2].value must not be blank.' },
      ],
    });
  });

  test('stored conditions are normalized: status lowercase, country in capitals', async () => {
    const group = await createGroup(store.api, {
      type: 'automatic',
      conditions: [
        { field: 'status', operator: 'is_same_as', value: 'Active' },
        { field: 'country', operator: 'is_not', value: 'fr' },
        { field: 'tag', operator: 'is_same_as', value: 'VIP' },
      ],
    });
    expect(group.conditions.map((c) => c.value)).toEqual(['active', 'FR', 'VIP']);
  });

  test('a manual group ignores conditions: validated, not kept', async () => {
    const group = await createGroup(store.api, {
      type: 'manual',
      conditions: [{ field: 'tag', operator: 'is_same_as', value: 'vip' }],
    });
    expect(group.conditions).toEqual([]);
    const invalid = await store.api.POST('/v1/customer-groups', {
      body: buildGroup({ conditions: [{ field: 'tag', operator: 'more_than', value: 'x' }] }),
    });
    expect(invalid.response.status).toBe(400);
  });

  test('malformed JSON and a wrong content type are 400; a publishable key 403; no key 401', async () => {
    const response = await fetch(`${store.app.baseUrl}/v1/customer-groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.keys.secret_test.token}`, 'content-type': 'application/json' },
      body: '{"name": "VIP",',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
    expect(
      (await store.app.client(store.keys.publishable_test.token).POST('/v1/customer-groups', { body: buildGroup() }))
        .response.status,
    ).toBe(403);
    expect((await store.app.client(store.keys.publishable_test.token).GET('/v1/customer-groups')).response.status).toBe(
      403,
    );
    expect((await store.app.client().GET('/v1/customer-groups')).response.status).toBe(401);
  });

  test('Idempotency-Key replays the first answer', async () => {
    const headers = { 'Idempotency-Key': `cg-${Date.now()}` };
    const first = await store.api.POST('/v1/customer-groups', { body: { name: 'Once' }, params: { header: headers } });
    const again = await store.api.POST('/v1/customer-groups', { body: { name: 'Once' }, params: { header: headers } });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.data.id).toBe(first.data!.data.id);
  });
});

describe('getCustomerGroup', () => {
  test('404 for an unknown id, a deleted group, and a group of another project', async () => {
    const deleted = await createGroup(store.api);
    await store.api.DELETE('/v1/customer-groups/{id}', byId(deleted.id));
    const other = await createProject(store.app);
    const foreign = await createGroup(store.app.client(other.keys.secret_test.token));
    for (const id of ['cg_unknown', deleted.id, foreign.id]) {
      const { error, response } = await store.api.GET('/v1/customer-groups/{id}', byId(id));
      expect(response.status).toBe(404);
      expect(error).toEqual({ error: { code: 'not_found', message: 'Customer group not found.' } });
    }
  });

  test('fields narrows the answer; members only with expand=members; other expand values are 400', async () => {
    const group = await createGroup(store.api, { name: 'Narrow' });
    const { data } = await store.api.GET('/v1/customer-groups/{id}', {
      params: { path: { id: group.id }, query: { fields: ['name', 'member_count', 'nope'] } },
    });
    expect(data!.data).toEqual({ id: group.id, name: 'Narrow', member_count: 0 });
    expect(await readGroup(store.api, group.id)).not.toHaveProperty('members');
    expect((await readGroup(store.api, group.id, true)).members).toEqual([]);
    const bad = await store.api.GET('/v1/customer-groups/{id}', {
      params: { path: { id: group.id }, query: { expand: ['customers' as never] } },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error.field).toBe('expand');
  });
});

describe('updateCustomerGroup', () => {
  const patch = (id: string, body: Record<string, unknown>) =>
    store.api.PATCH('/v1/customer-groups/{id}', { params: { path: { id } }, body: body as never });

  test('a new name keeps the handle; handle changes only when sent, 409 when taken', async () => {
    const group = await createGroup(store.api, { name: 'Original Name' });
    const renamed = (await patch(group.id, { name: 'New Name' })).data!.data;
    expect(renamed).toMatchObject({ name: 'New Name', handle: 'original-name' });
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(group.updated_at));
    expect((await patch(group.id, { handle: 'new-name' })).data!.data.handle).toBe('new-name');
    await createGroup(store.api, { handle: 'occupied' });
    const taken = await patch(group.id, { handle: 'occupied' });
    expect(taken.response.status).toBe(409);
    expect(taken.error!.error).toMatchObject({ code: 'conflict', field: 'handle' });
    expect((await patch(group.id, { handle: 'Not Valid' })).error!.error.field).toBe('handle');
  });

  test('description and active_price_key are cleared with null', async () => {
    const group = await createGroup(store.api, { description: 'Top buyers', active_price_key: 'gold' });
    const cleared = (await patch(group.id, { description: null, active_price_key: null })).data!.data;
    expect(cleared).toMatchObject({ description: null, active_price_key: null });
  });

  test('metadata is merged: sent keys set, a key sent as "" removed, at most 50 keys after the merge', async () => {
    const group = await createGroup(store.api, { metadata: { keep: 'yes', drop: 'soon', change: 1 } });
    const merged = (await patch(group.id, { metadata: { drop: '', change: 2, added: true } })).data!.data;
    expect(merged.metadata).toEqual({ keep: 'yes', change: 2, added: true });
    const many = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, i]));
    const over = await patch(group.id, { metadata: many });
    expect(over.response.status).toBe(400);
    expect(over.error!.error).toMatchObject({ code: 'invalid_request', field: 'metadata' });
    expect((await readGroup(store.api, group.id)).metadata).toEqual({
      keep: 'yes',
      change: 2,
      added: true,
    });
    expect(Object.keys((await patch(group.id, { metadata: { ...many, keep: '' } })).data!.data.metadata)).toHaveLength(
      50,
    );
  });

  test('type is not updatable: sending it is 400 naming type', async () => {
    const group = await createGroup(store.api);
    const { error, response } = await patch(group.id, { type: 'automatic' });
    expect(response.status).toBe(400);
    expect(error!.error).toEqual({
      code: 'invalid_request',
      message: 'type is not a field this operation accepts.',
      field: 'type',
    });
    expect((await readGroup(store.api, group.id)).type).toBe('manual');
  });

  test('conditions replace all conditions of an automatic group (still 1-20, validated); condition_match changes', async () => {
    const group = await createGroup(store.api, {
      type: 'automatic',
      conditions: [
        { field: 'tag', operator: 'is_same_as', value: 'a' },
        { field: 'tag', operator: 'is_same_as', value: 'b' },
      ],
    });
    const updated = (
      await patch(group.id, {
        conditions: [{ field: 'order_count', operator: 'more_than', value: 2 }],
        condition_match: 'any',
      })
    ).data!.data;
    expect(updated).toMatchObject({
      conditions: [{ field: 'order_count', operator: 'more_than', value: 2 }],
      condition_match: 'any',
    });
    const empty = await patch(group.id, { conditions: [] });
    expect(empty.error!.error).toMatchObject({ code: 'invalid_request', field: 'conditions' });
    const invalid = await patch(group.id, { conditions: [{ field: 'country', operator: 'is_same_as', value: 'X' }] });
    expect(invalid.error!.error).toMatchObject({ field: 'conditions[0].value' });
    expect((await readGroup(store.api, group.id)).conditions).toEqual([
      { field: 'order_count', operator: 'more_than', value: 2 },
    ]);
  });

  test('a manual group ignores conditions sent in a PATCH', async () => {
    const group = await createGroup(store.api);
    expect(
      (await patch(group.id, { conditions: [{ field: 'tag', operator: 'is_same_as', value: 'x' }] })).data!.data
        .conditions,
    ).toEqual([]);
  });

  test('an empty body is 400; an unknown or deleted group is 404', async () => {
    const group = await createGroup(store.api);
    expect((await patch(group.id, {})).error!.error).toEqual({
      code: 'invalid_request',
      message: 'Send at least one field.',
      field: 'body',
    });
    expect((await patch('cg_unknown', { name: 'x' })).response.status).toBe(404);
    await store.api.DELETE('/v1/customer-groups/{id}', byId(group.id));
    expect((await patch(group.id, { name: 'x' })).response.status).toBe(404);
  });
});

describe('deleteCustomerGroup', () => {
  test('soft delete: 204, then 404 and gone from the list; the handle is free again; a second delete is 404', async () => {
    const group = await createGroup(store.api, { name: 'Short Lived', handle: 'short-lived' });
    const { response } = await store.api.DELETE('/v1/customer-groups/{id}', byId(group.id));
    expect(response.status).toBe(204);
    expect((await store.api.GET('/v1/customer-groups/{id}', byId(group.id))).response.status).toBe(404);
    expect((await list({ search: 'short lived' })).data).toEqual([]);
    expect((await createGroup(store.api, { handle: 'short-lived' })).handle).toBe('short-lived');
    expect((await createGroup(store.api, { name: 'Short Lived' })).handle).toBe('short-lived-2');
    expect((await store.api.DELETE('/v1/customer-groups/{id}', byId(group.id))).response.status).toBe(404);
    const row = await store.app.deps.db.customerGroup.findUniqueOrThrow({ where: { id: group.id } });
    expect(row.deletedAt).not.toBeNull();
  });
});

describe('listCustomerGroups', () => {
  test('newest first by default; order, sort by name (case-insensitive) and updated_at; search is a literal case-insensitive substring', async () => {
    const other = await createProject(store.app);
    const api = store.app.client(other.keys.secret_test.token);
    const names = ['beta buyers', 'Alpha', 'GAMMA 100%', 'delta_x'];
    const created = [];
    for (const name of names) created.push(await createGroup(api, { name }));
    const base = Date.now() - 60_000;
    for (const [i, group] of created.entries()) {
      await store.app.deps.db.customerGroup.update({
        where: { id: group.id },
        data: { createdAt: new Date(base + i * 1000), updatedAt: new Date(base + i * 1000) },
      });
    }
    const namesOf = async (query: ListQuery) =>
      (await api.GET('/v1/customer-groups', { params: { query } })).data!.data.map((g) => g.name);
    expect(await namesOf({})).toEqual(['delta_x', 'GAMMA 100%', 'Alpha', 'beta buyers']);
    expect(await namesOf({ order: 'asc' })).toEqual(['beta buyers', 'Alpha', 'GAMMA 100%', 'delta_x']);
    expect(await namesOf({ sort: 'name', order: 'asc' })).toEqual(['Alpha', 'beta buyers', 'delta_x', 'GAMMA 100%']);
    await api.PATCH('/v1/customer-groups/{id}', {
      params: { path: { id: created[1].id } },
      body: { description: 'touched' },
    });
    expect((await namesOf({ sort: 'updated_at' }))[0]).toBe('Alpha');
    expect(await namesOf({ search: 'ALP' })).toEqual(['Alpha']);
    expect(await namesOf({ search: '100%' })).toEqual(['GAMMA 100%']);
    expect(await namesOf({ search: '%' })).toEqual(['GAMMA 100%']);
    expect(await namesOf({ search: 'a_x' })).toEqual(['delta_x']);
    expect(await namesOf({ search: 'a x' })).toEqual([]);
  });

  test('limit 1-250 (default 25); the cursor walks every group once; total counts the matches', async () => {
    const other = await createProject(store.app);
    const api = store.app.client(other.keys.secret_test.token);
    await store.app.deps.db.customerGroup.createMany({
      data: Array.from({ length: 260 }, (_, i) => ({
        id: `cg_bulk${String(i).padStart(22, '0')}`,
        projectId: other.project.id,
        name: `Bulk ${i}`,
        sortName: `bulk ${i}`,
        handle: `bulk-${i}`,
        conditions: [],
        metadata: {},
      })),
    });
    const first = (await api.GET('/v1/customer-groups', { params: { query: {} } })).data!;
    expect(first.data).toHaveLength(25);
    expect(first.pagination).toMatchObject({ has_more: true, total: 260 });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await api.GET('/v1/customer-groups', { params: { query: { limit: 250, cursor, sort: 'name' } } }))
        .data!;
      seen.push(...page.data.map((g) => g.id));
      cursor = page.pagination.cursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(260);
    expect(new Set(seen).size).toBe(260);
    for (const limit of [0, 251]) {
      const { error, response } = await api.GET('/v1/customer-groups', { params: { query: { limit } } });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe('limit');
    }
  });

  test('each group carries member_count; fields narrows; invalid parameters are 400 naming them', async () => {
    const group = await createGroup(store.api, { name: 'Listed With Count' });
    const page = await list({ search: 'listed with count', fields: ['member_count'] });
    expect(page.data).toEqual([{ id: group.id, member_count: 0 }]);
    for (const [query, field] of [
      [{ sort: 'member_count' }, 'sort'],
      [{ order: 'up' }, 'order'],
      [{ search: 's'.repeat(201) }, 'search'],
      [{ search: '' }, 'search'],
      [{ expand: ['conditions'] }, 'expand'],
      [{ type: 'manual' }, 'type'],
    ] as const) {
      const { error, response } = await store.api.GET('/v1/customer-groups', { params: { query: query as never } });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe(field);
    }
  });
});
