import type { PartialAreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { toCompanyContactResource } from './companies.mappers.js';
import {
  createCompanyContact,
  deleteCompanyContact,
  listCompanyContacts,
  updateCompanyContact,
} from './contacts.service.js';

export const contactHandlers = {
  listCompanyContacts: async ({ path, query, ctx }) => {
    const contacts = await listCompanyContacts(ctx, path.id);
    return { status: 200, body: { data: contacts.map((c) => pickFields(toCompanyContactResource(c), query.fields)) } };
  },
  createCompanyContact: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toCompanyContactResource(await createCompanyContact(ctx, path.id, body)) },
  }),
  updateCompanyContact: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCompanyContactResource(await updateCompanyContact(ctx, path.id, path.contact_id, body)) },
  }),
  deleteCompanyContact: async ({ path, ctx }) => {
    await deleteCompanyContact(ctx, path.id, path.contact_id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'companies'>;
