import { describe, expect, test } from '@jest/globals';
import { createCustomer } from '../../factories/customer.factory.js';
import { createAutomaticGroup, createGroup, memberIds, readGroup } from '../../factories/customer-group.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const addMembers = (id: string, customer_ids: string[]) =>
  store.api.POST('/v1/customer-groups/{id}/members', { params: { path: { id } }, body: { customer_ids } });
const removeMember = (id: string, customer_id: string) =>
  store.api.DELETE('/v1/customer-groups/{id}/members/{customer_id}', { params: { path: { id, customer_id } } });
const groupsOf = async (customer_id: string) =>
  (await store.api.GET('/v1/customer-groups', { params: { query: { customer_id, limit: 250 } } }))
    .data!.data.map((g) => g.id)
    .sort();

describe('addCustomerGroupMembers', () => {
  test('a manual group takes 3 customers, skips a repeat, and refuses an unknown id without adding the others', async () => {
    const group = await createGroup(store.api, { name: 'Wholesale' });
    const [a, b, c, d] = [
      await createCustomer(store.api),
      await createCustomer(store.api),
      await createCustomer(store.api),
      await createCustomer(store.api),
    ];

    const added = await addMembers(group.id, [a.id, b.id, c.id]);
    expect(added.response.status).toBe(200);
    expect(added.data!.data).toMatchObject({ id: group.id, member_count: 3 });
    expect(added.data!.data.members!.map((m) => m.id).sort()).toEqual([a.id, b.id, c.id].sort());

    const repeat = await addMembers(group.id, [a.id, a.id]);
    expect(repeat.response.status).toBe(200);
    expect(repeat.data!.data.member_count).toBe(3);

    const refused = await addMembers(group.id, [d.id, 'cus_00000000000000000000000000']);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'No customer of this project has the ID cus_00000000000000000000000000; nothing was added.',
        field: 'customer_ids',
      },
    });
    expect((await readGroup(store.api, group.id)).member_count).toBe(3);
    expect(await memberIds(store.api, group.id)).toEqual([a.id, b.id, c.id].sort());
  });

  test('deleted customers and customers of another project are unknown ids: 400 naming each, nothing added', async () => {
    const group = await createGroup(store.api);
    const live = await createCustomer(store.api);
    const deleted = await createCustomer(store.api);
    await store.api.DELETE('/v1/customers/{id}', { params: { path: { id: deleted.id } } });
    const other = await createProject(store.app);
    const foreign = await createCustomer(store.app.client(other.keys.secret_test.token));
    const { error } = await addMembers(group.id, [live.id, deleted.id, foreign.id]);
    expect(error!.error).toEqual({
      code: 'invalid_request',
      field: 'customer_ids',
      message: `No customer of this project has the IDs ${deleted.id}, ${foreign.id}; nothing was added.`,
    });
    expect((await readGroup(store.api, group.id)).member_count).toBe(0);
  });

  test('customer_ids takes 1-100 ids', async () => {
    const group = await createGroup(store.api);
    for (const customer_ids of [[], Array.from({ length: 101 }, (_, i) => `cus_${i}`)]) {
      const { error, response } = await addMembers(group.id, customer_ids);
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe('customer_ids');
    }
    const { error } = await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: group.id } },
      body: {} as never,
    });
    expect(error!.error).toMatchObject({ field: 'customer_ids', message: 'customer_ids is required.' });
  });

  test('100 customers in one request', async () => {
    const group = await createGroup(store.api);
    const ids = await bulkCustomers(100, 'hundred');
    const { data, response } = await addMembers(group.id, ids);
    expect(response.status).toBe(200);
    expect(data!.data.member_count).toBe(100);
    expect(data!.data.members).toHaveLength(100);
  });

  test('an automatic group takes no members: 400 (case mapping 6), nothing added', async () => {
    const group = await createAutomaticGroup(store.api, [{ field: 'order_count', operator: 'more_than', value: 1000 }]);
    const customer = await createCustomer(store.api);
    const { error, response } = await addMembers(group.id, [customer.id]);
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: {
        code: 'invalid_request',
        message: 'This group is automatic; its conditions decide its members. Add customers to a manual group instead.',
      },
    });
    expect((await readGroup(store.api, group.id)).member_count).toBe(0);
  });

  test('an unknown or deleted group is 404', async () => {
    const group = await createGroup(store.api);
    await store.api.DELETE('/v1/customer-groups/{id}', { params: { path: { id: group.id } } });
    const customer = await createCustomer(store.api);
    for (const id of ['cg_unknown', group.id]) expect((await addMembers(id, [customer.id])).response.status).toBe(404);
  });

  test('concurrent adds of overlapping customers keep one membership each', async () => {
    const group = await createGroup(store.api);
    const ids = await bulkCustomers(10, 'overlap');
    const answers = await Promise.all([
      addMembers(group.id, ids.slice(0, 7)),
      addMembers(group.id, ids.slice(3)),
      addMembers(group.id, ids),
    ]);
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200]);
    expect((await readGroup(store.api, group.id)).member_count).toBe(10);
  });
});

describe('expand=members', () => {
  test('members are {id, email, first_name, last_name}, the last added first', async () => {
    const group = await createGroup(store.api);
    const first = await createCustomer(store.api, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@members.example',
    });
    const second = await createCustomer(store.api, {
      first_name: 'Bo',
      last_name: 'Diddley',
      email: 'bo@members.example',
    });
    await addMembers(group.id, [second.id]);
    await store.app.deps.db.customerGroupMember.updateMany({
      where: { groupId: group.id },
      data: { createdAt: new Date(Date.now() - 60_000) },
    });
    await addMembers(group.id, [first.id]);
    expect((await readGroup(store.api, group.id, true)).members).toEqual([
      { id: first.id, email: 'ada@members.example', first_name: 'Ada', last_name: 'Lovelace' },
      { id: second.id, email: 'bo@members.example', first_name: 'Bo', last_name: 'Diddley' },
    ]);
  });

  test('at most 100 members are inlined; member_count counts all of them', async () => {
    const group = await createGroup(store.api);
    const ids = await bulkCustomers(120, 'many');
    await addMembers(group.id, ids.slice(0, 100));
    const { data } = await addMembers(group.id, ids.slice(100));
    expect(data!.data.member_count).toBe(120);
    expect(data!.data.members).toHaveLength(100);
    expect(
      data!.data
        .members!.slice(0, 20)
        .map((m) => m.id)
        .sort(),
    ).toEqual(ids.slice(100).sort());
    const listed = (
      await store.api.GET('/v1/customer-groups', { params: { query: { expand: ['members'], search: group.name } } })
    ).data!.data;
    expect(listed[0].members).toHaveLength(100);
    expect(await memberIds(store.api, group.id)).toEqual([...ids].sort());
  });

  test('a deleted customer leaves every count, expansion and list at once', async () => {
    const group = await createGroup(store.api);
    const [stays, leaves] = [await createCustomer(store.api), await createCustomer(store.api)];
    await addMembers(group.id, [stays.id, leaves.id]);
    await store.api.DELETE('/v1/customers/{id}', { params: { path: { id: leaves.id } } });
    const read = await readGroup(store.api, group.id, true);
    expect(read.member_count).toBe(1);
    expect(read.members!.map((m) => m.id)).toEqual([stays.id]);
    expect(await memberIds(store.api, group.id)).toEqual([stays.id]);
  });
});

describe('removeCustomerGroupMember', () => {
  test('204; the customer stays; removing again is 404', async () => {
    const group = await createGroup(store.api);
    const customer = await createCustomer(store.api);
    await addMembers(group.id, [customer.id]);
    expect((await removeMember(group.id, customer.id)).response.status).toBe(204);
    expect((await readGroup(store.api, group.id)).member_count).toBe(0);
    expect((await store.api.GET('/v1/customers/{id}', { params: { path: { id: customer.id } } })).response.status).toBe(
      200,
    );
    const again = await removeMember(group.id, customer.id);
    expect(again.response.status).toBe(404);
    expect(again.error).toEqual({ error: { code: 'not_found', message: 'The customer is not in this group.' } });
  });

  test('an automatic group is 400; an unknown group 404', async () => {
    const group = await createAutomaticGroup(store.api, [{ field: 'status', operator: 'is_same_as', value: 'active' }]);
    const customer = await createCustomer(store.api);
    const { error, response } = await removeMember(group.id, customer.id);
    expect(response.status).toBe(400);
    expect(error!.error.message).toBe(
      'This group is automatic; its conditions decide its members. Change its conditions, or the customer, instead.',
    );
    expect((await removeMember('cg_unknown', customer.id)).error!.error.message).toBe('Customer group not found.');
  });
});

describe('deleting a group', () => {
  test('removes its memberships; the customers stay', async () => {
    const group = await createGroup(store.api);
    const customer = await createCustomer(store.api);
    await addMembers(group.id, [customer.id]);
    await store.api.DELETE('/v1/customer-groups/{id}', { params: { path: { id: group.id } } });
    expect(await store.app.deps.db.customerGroupMember.count({ where: { groupId: group.id } })).toBe(0);
    expect(await groupsOf(customer.id)).not.toContain(group.id);
    expect((await store.api.GET('/v1/customers/{id}', { params: { path: { id: customer.id } } })).response.status).toBe(
      200,
    );
    const { error } = await store.api.GET('/v1/customers', { params: { query: { group_id: group.id } } });
    expect(error!.error).toEqual({
      code: 'invalid_request',
      message: 'group_id does not name a customer group of this project.',
      field: 'group_id',
    });
  });
});

describe('listCustomerGroups customer_id', () => {
  test('the manual groups the customer was added to and the automatic groups whose conditions it meets', async () => {
    // A project of its own: automatic groups of other tests would select this customer too.
    const api = store.app.client((await createProject(store.app)).keys.secret_test.token);
    const customer = await createCustomer(api, { tags: ['Bulk-Buyer'] });
    const other = await createCustomer(api);
    const [manualIn, manualOut] = [await createGroup(api), await createGroup(api)];
    const autoIn = await createAutomaticGroup(api, [{ field: 'tag', operator: 'is_same_as', value: 'bulk-buyer' }]);
    await createAutomaticGroup(api, [{ field: 'tag', operator: 'is_not', value: 'bulk-buyer' }]);
    await api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: manualIn.id } },
      body: { customer_ids: [customer.id] },
    });
    await api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: manualOut.id } },
      body: { customer_ids: [other.id] },
    });
    const page = (await api.GET('/v1/customer-groups', { params: { query: { customer_id: customer.id } } })).data!;
    expect(page.data.map((g) => g.id).sort()).toEqual([manualIn.id, autoIn.id].sort());
    const first = (await api.GET('/v1/customer-groups', { params: { query: { customer_id: customer.id, limit: 1 } } }))
      .data!;
    expect(first.pagination).toMatchObject({ total: 2, has_more: true });
  });

  test('an unknown, deleted or foreign customer is 400 naming customer_id', async () => {
    const deleted = await createCustomer(store.api);
    await store.api.DELETE('/v1/customers/{id}', { params: { path: { id: deleted.id } } });
    const other = await createProject(store.app);
    const foreign = await createCustomer(store.app.client(other.keys.secret_test.token));
    for (const customer_id of ['cus_unknown', deleted.id, foreign.id]) {
      const { error, response } = await store.api.GET('/v1/customer-groups', { params: { query: { customer_id } } });
      expect(response.status).toBe(400);
      expect(error!.error).toEqual({
        code: 'invalid_request',
        message: 'customer_id does not name a customer of this project.',
        field: 'customer_id',
      });
    }
  });
});

describe('listCustomers group_id', () => {
  test('lists the members of a manual group, combined with the other filters, page by page', async () => {
    const group = await createGroup(store.api);
    const ann = await createCustomer(store.api, { first_name: 'Ann', status: 'inactive' });
    const bea = await createCustomer(store.api, { first_name: 'Bea' });
    await createCustomer(store.api, { first_name: 'Ann' });
    await addMembers(group.id, [ann.id, bea.id]);
    const query = (extra: object) =>
      store.api.GET('/v1/customers', { params: { query: { group_id: group.id, ...extra } } });
    expect((await query({})).data!.pagination.total).toBe(2);
    expect((await query({ status: 'inactive' })).data!.data.map((c) => c.id)).toEqual([ann.id]);
    expect((await query({ search: 'bea', sort: 'relevance' })).data!.data.map((c) => c.id)).toEqual([bea.id]);
    const first = (await query({ limit: 1 })).data!;
    const second = (await query({ limit: 1, cursor: first.pagination.cursor! })).data!;
    expect([...first.data, ...second.data].map((c) => c.id).sort()).toEqual([ann.id, bea.id].sort());
    expect(second.pagination.cursor).toBeNull();
  });

  test('an unknown or foreign group is 400 naming group_id', async () => {
    const other = await createProject(store.app);
    const foreign = await createGroup(store.app.client(other.keys.secret_test.token));
    for (const group_id of ['cg_unknown', foreign.id]) {
      const { error, response } = await store.api.GET('/v1/customers', { params: { query: { group_id } } });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe('group_id');
    }
  });
});

let bulk = 0;
/** Inserts `count` customers directly (faster than the API), oldest first, and returns their ids. */
async function bulkCustomers(count: number, label: string): Promise<string[]> {
  bulk += 1;
  const base = Date.now() - 3_600_000;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `cus_${label.slice(0, 8).padEnd(8, 'x')}${String(bulk).padStart(4, '0')}${String(i).padStart(14, '0')}`,
    projectId: store.project.id,
    email: `${label}${bulk}.${i}@bulk.example`,
    emailNormalized: `${label}${bulk}.${i}@bulk.example`,
    firstName: 'Bulk',
    lastName: `${label} ${i}`,
    sortName: `${label} ${i}\u0001bulk`,
    tags: [],
    metadata: {},
    createdAt: new Date(base + i * 1000),
  }));
  await store.app.deps.db.customer.createMany({ data: rows });
  return rows.map((row) => row.id);
}
