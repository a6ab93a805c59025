import type { AreaHandlers, PartialAreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import { addressHandlers } from './addresses.handlers.js';
import { listCompanies } from './companies.list.js';
import { toCompanyResource } from './companies.mappers.js';
import { createCompany, deleteCompany, getCompany, updateCompany } from './companies.service.js';
import { contactHandlers } from './contacts.handlers.js';

const companyCrudHandlers = {
  listCompanies: async ({ query, ctx }) => ({ status: 200, body: await listCompanies(ctx, query) }),
  createCompany: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toCompanyResource(await createCompany(ctx, body)) },
  }),
  getCompany: async ({ path, query, ctx }) => {
    const company = await getCompany(ctx, path.id, {
      addresses: query.expand?.includes('addresses'),
      contacts: query.expand?.includes('contacts'),
    });
    return { status: 200, body: { data: pickFields(toCompanyResource(company), query.fields) } };
  },
  updateCompany: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCompanyResource(await updateCompany(ctx, path.id, body)) },
  }),
  deleteCompany: async ({ path, ctx }) => {
    await deleteCompany(ctx, path.id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'companies'>;

export const companyHandlers = {
  ...companyCrudHandlers,
  ...addressHandlers,
  ...contactHandlers,
} satisfies AreaHandlers<'companies'>;
