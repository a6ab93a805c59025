import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { CompanyAddress } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { newPostalColumns, postalColumns } from '../../shared/postal-address.js';
import { newId } from '../../shared/ids.js';
import { ADDRESS_ORDER, findCompany, writeCompanyPart } from './companies.service.js';

type AddressCreate = components['schemas']['CompanyAddressCreate'];
type AddressUpdate = components['schemas']['CompanyAddressUpdate'];

/** The company's addresses, the default first, then oldest first. */
export async function listCompanyAddresses(ctx: Ctx, companyId: string): Promise<CompanyAddress[]> {
  await findCompany(ctx, ctx.db, companyId);
  return ctx.db.companyAddress.findMany({ where: { companyId }, orderBy: [...ADDRESS_ORDER] });
}

// Callers hold the company's row lock (writeCompanyPart), so concurrent default changes queue up and one default remains.
async function clearDefault(tx: Tx, companyId: string, except?: string): Promise<void> {
  await tx.companyAddress.updateMany({
    where: { companyId, isDefault: true, id: except ? { not: except } : undefined },
    data: { isDefault: false },
  });
}

async function findAddress(tx: Tx, companyId: string, id: string): Promise<CompanyAddress> {
  const address = await tx.companyAddress.findFirst({ where: { id, companyId } });
  if (!address) throw notFound('Address not found.');
  return address;
}

/** Adds an address; as the default it replaces the previous default in the same transaction. */
export async function createCompanyAddress(ctx: Ctx, companyId: string, input: AddressCreate): Promise<CompanyAddress> {
  return writeCompanyPart(ctx, companyId, async (tx) => {
    if (input.is_default) await clearDefault(tx, companyId);
    return tx.companyAddress.create({
      data: {
        id: newId('caddr_'),
        companyId,
        label: input.label ?? null,
        ...newPostalColumns(input),
        isDefault: input.is_default ?? false,
      },
    });
  });
}

/** Applies the fields sent; `is_default: true` makes it the company's only default. 404 unless it is an address of the company. */
export async function updateCompanyAddress(
  ctx: Ctx,
  companyId: string,
  id: string,
  input: AddressUpdate,
): Promise<CompanyAddress> {
  return writeCompanyPart(ctx, companyId, async (tx) => {
    await findAddress(tx, companyId, id);
    if (input.is_default) await clearDefault(tx, companyId, id);
    return tx.companyAddress.update({
      where: { id },
      data: {
        label: input.label,
        ...postalColumns(input),
        isDefault: input.is_default,
      },
    });
  });
}

/** Deletes an address of the company (a deleted default leaves none); 404 unless it is one of its addresses. */
export async function deleteCompanyAddress(ctx: Ctx, companyId: string, id: string): Promise<void> {
  await writeCompanyPart(ctx, companyId, async (tx) => {
    await findAddress(tx, companyId, id);
    await tx.companyAddress.delete({ where: { id } });
  });
}
