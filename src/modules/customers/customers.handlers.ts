import type { Handlers } from '../../http/contract.js';
import { pickFields } from '../../shared/fields.js';
import { createAddress, deleteAddress, listAddresses, updateAddress } from './addresses.service.js';
import { listCustomers } from './customers.list.js';
import { toAddressResource, toCustomerResource, toNoteResource } from './customers.mappers.js';
import { createCustomer, deleteCustomer, getCustomer, updateCustomer } from './customers.service.js';
import { createNote, deleteNote, listNotes } from './notes.service.js';

export const customerHandlers = {
  listCustomers: async ({ query, caller, deps }) => {
    const { rows, pagination } = await listCustomers(deps.db, caller.project, query);
    return { status: 200, body: { data: rows.map((row) => pickFields(toCustomerResource(row), query.fields)), pagination } };
  },
  createCustomer: async ({ body, caller, deps }) => ({
    status: 201,
    body: { data: toCustomerResource(await createCustomer(deps.db, caller, body)) },
  }),
  getCustomer: async ({ path, query, caller, deps }) => {
    const { customer, addresses } = await getCustomer(deps.db, caller.project, path.id, query.expand?.includes('addresses') ?? false);
    return { status: 200, body: { data: pickFields(toCustomerResource(customer, addresses), query.fields) } };
  },
  updateCustomer: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toCustomerResource(await updateCustomer(deps.db, caller, path.id, body)) },
  }),
  deleteCustomer: async ({ path, caller, deps }) => {
    await deleteCustomer(deps.db, caller, path.id);
    return { status: 204, body: undefined };
  },
  listCustomerAddresses: async ({ path, query, caller, deps }) => {
    const addresses = await listAddresses(deps.db, caller.project, path.id);
    return { status: 200, body: { data: addresses.map((a) => pickFields(toAddressResource(a), query.fields)) } };
  },
  createCustomerAddress: async ({ path, body, caller, deps }) => ({
    status: 201,
    body: { data: toAddressResource(await createAddress(deps.db, caller.project, path.id, body)) },
  }),
  updateCustomerAddress: async ({ path, body, caller, deps }) => ({
    status: 200,
    body: { data: toAddressResource(await updateAddress(deps.db, caller.project, path.id, body)) },
  }),
  deleteCustomerAddress: async ({ path, caller, deps }) => {
    await deleteAddress(deps.db, caller.project, path.id);
    return { status: 204, body: undefined };
  },
  listCustomerNotes: async ({ path, caller, deps }) => ({
    status: 200,
    body: { data: (await listNotes(deps.db, caller, path.id)).map(toNoteResource) },
  }),
  createCustomerNote: async ({ path, body, caller, deps }) => ({
    status: 201,
    body: { data: toNoteResource(await createNote(deps.db, caller, path.id, body.content)) },
  }),
  deleteCustomerNote: async ({ path, caller, deps }) => {
    await deleteNote(deps.db, caller, path.id, path.note_id);
    return { status: 204, body: undefined };
  },
} satisfies Pick<
  Handlers,
  | 'listCustomers' | 'createCustomer' | 'getCustomer' | 'updateCustomer' | 'deleteCustomer'
  | 'listCustomerAddresses' | 'createCustomerAddress' | 'updateCustomerAddress' | 'deleteCustomerAddress'
  | 'listCustomerNotes' | 'createCustomerNote' | 'deleteCustomerNote'
>;
