import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { CompanyContact } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { CONTACT_ORDER, findCompany, writeCompanyPart } from './companies.service.js';

type ContactCreate = components['schemas']['CompanyContactCreate'];
type ContactUpdate = components['schemas']['CompanyContactUpdate'];

/** The company's contacts, the primary first, then oldest first. */
export async function listCompanyContacts(ctx: Ctx, companyId: string): Promise<CompanyContact[]> {
  await findCompany(ctx, ctx.db, companyId);
  return ctx.db.companyContact.findMany({ where: { companyId }, orderBy: [...CONTACT_ORDER] });
}

// Callers hold the company's row lock (writeCompanyPart), so concurrent primary changes queue up and one primary remains.
async function clearPrimary(tx: Tx, companyId: string, except?: string): Promise<void> {
  await tx.companyContact.updateMany({
    where: { companyId, isPrimary: true, id: except ? { not: except } : undefined },
    data: { isPrimary: false },
  });
}

/**
 * 400 on customer_id unless it names a live customer of the project (a contact links only its own project's); null
 * or absent links none (an empty id is checked like any other).
 */
async function checkLinkedCustomer(ctx: Ctx, tx: Tx, customerId: string | null | undefined): Promise<void> {
  if (customerId === null || customerId === undefined) return;
  const customer = await tx.customer.findFirst({
    where: { id: customerId, projectId: ctx.project.id, deletedAt: null },
    select: { id: true },
  });
  if (!customer)
    throw invalidField('customer_id', `customer_id ${customerId} does not name a customer of this project.`);
}

async function findContact(tx: Tx, companyId: string, id: string): Promise<CompanyContact> {
  const contact = await tx.companyContact.findFirst({ where: { id, companyId } });
  if (!contact) throw notFound('Contact not found.');
  return contact;
}

/**
 * Adds a contact (linked to `customer_id` when given: 400 unless a live customer of the project); as the primary it
 * replaces the previous primary in the same transaction.
 */
export async function createCompanyContact(ctx: Ctx, companyId: string, input: ContactCreate): Promise<CompanyContact> {
  return writeCompanyPart(ctx, companyId, async (tx) => {
    await checkLinkedCustomer(ctx, tx, input.customer_id);
    if (input.is_primary) await clearPrimary(tx, companyId);
    return tx.companyContact.create({
      data: {
        id: newId('ccon_'),
        companyId,
        name: input.name,
        email: input.email ?? null,
        phone: input.phone ?? null,
        role: input.role ?? null,
        isPrimary: input.is_primary ?? false,
        customerId: input.customer_id ?? null,
      },
    });
  });
}

/**
 * Applies the fields sent; `is_primary: true` makes it the company's only primary contact; `customer_id` links a
 * live customer of the project (400 otherwise) or, null, unlinks. 404 unless it is a contact of the company.
 */
export async function updateCompanyContact(
  ctx: Ctx,
  companyId: string,
  id: string,
  input: ContactUpdate,
): Promise<CompanyContact> {
  return writeCompanyPart(ctx, companyId, async (tx) => {
    await findContact(tx, companyId, id);
    await checkLinkedCustomer(ctx, tx, input.customer_id);
    if (input.is_primary) await clearPrimary(tx, companyId, id);
    return tx.companyContact.update({
      where: { id },
      data: {
        name: input.name,
        email: input.email,
        phone: input.phone,
        role: input.role,
        isPrimary: input.is_primary,
        customerId: input.customer_id,
      },
    });
  });
}

/** Deletes a contact of the company (a deleted primary leaves none); 404 unless it is one of its contacts. */
export async function deleteCompanyContact(ctx: Ctx, companyId: string, id: string): Promise<void> {
  await writeCompanyPart(ctx, companyId, async (tx) => {
    await findContact(tx, companyId, id);
    await tx.companyContact.delete({ where: { id } });
  });
}
