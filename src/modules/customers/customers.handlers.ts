import type { AreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { withMetafields } from '../metafields/index.js';
import { createAddress, deleteAddress, listAddresses, updateAddress } from './addresses.service.js';
import { listCustomers } from './customers.list.js';
import { toAddressResource, toCustomerResource, toNoteResource } from './customers.mappers.js';
import { createCustomer, deleteCustomer, getCustomer, updateCustomer } from './customers.service.js';
import { createNote, deleteNote, listNotes } from './notes.service.js';

export const customerHandlers = {
  listCustomers: async ({ query, ctx }) => {
    const page = await listCustomers(ctx, query);
    return { status: 200, body: { ...page, data: await withMetafields(ctx, 'customer', query, page.data) } };
  },
  createCustomer: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toCustomerResource(await createCustomer(ctx, body)) },
  }),
  getCustomer: async ({ path, query, ctx }) => {
    const { customer, addresses } = await getCustomer(ctx, path.id, query.expand?.includes('addresses') ?? false);
    const resource = pickFields(toCustomerResource(customer, addresses), query.fields);
    return { status: 200, body: { data: (await withMetafields(ctx, 'customer', query, [resource]))[0] } };
  },
  updateCustomer: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCustomerResource(await updateCustomer(ctx, path.id, body)) },
  }),
  deleteCustomer: async ({ path, ctx }) => {
    await deleteCustomer(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listCustomerAddresses: async ({ path, query, ctx }) => {
    const addresses = await listAddresses(ctx, path.id);
    return { status: 200, body: { data: addresses.map((a) => pickFields(toAddressResource(a), query.fields)) } };
  },
  createCustomerAddress: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toAddressResource(await createAddress(ctx, path.id, body)) },
  }),
  updateCustomerAddress: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toAddressResource(await updateAddress(ctx, path.id, body)) },
  }),
  deleteCustomerAddress: async ({ path, ctx }) => {
    await deleteAddress(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listCustomerNotes: async ({ path, ctx }) => ({
    status: 200,
    body: { data: (await listNotes(ctx, path.id)).map(toNoteResource) },
  }),
  createCustomerNote: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toNoteResource(await createNote(ctx, path.id, body.content)) },
  }),
  deleteCustomerNote: async ({ path, ctx }) => {
    await deleteNote(ctx, path.id, path.note_id);
    return { status: 204, body: undefined };
  },
} satisfies AreaHandlers<'customers'>;
