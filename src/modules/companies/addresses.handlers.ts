import type { PartialAreaHandlers } from '../../shared/contract.js';
import { pickFields } from '../../shared/fields.js';
import {
  createCompanyAddress,
  deleteCompanyAddress,
  listCompanyAddresses,
  updateCompanyAddress,
} from './addresses.service.js';
import { toCompanyAddressResource } from './companies.mappers.js';

export const addressHandlers = {
  listCompanyAddresses: async ({ path, query, ctx }) => {
    const addresses = await listCompanyAddresses(ctx, path.id);
    return { status: 200, body: { data: addresses.map((a) => pickFields(toCompanyAddressResource(a), query.fields)) } };
  },
  createCompanyAddress: async ({ path, body, ctx }) => ({
    status: 201,
    body: { data: toCompanyAddressResource(await createCompanyAddress(ctx, path.id, body)) },
  }),
  updateCompanyAddress: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toCompanyAddressResource(await updateCompanyAddress(ctx, path.id, path.address_id, body)) },
  }),
  deleteCompanyAddress: async ({ path, ctx }) => {
    await deleteCompanyAddress(ctx, path.id, path.address_id);
    return { status: 204, body: undefined };
  },
} satisfies PartialAreaHandlers<'companies'>;
