import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { allocateHandle } from '../../shared/handles.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { changedFields, recordChange, recordEvent } from '../store-events/index.js';
import { toCompanyResource, type CompanyRow } from './companies.mappers.js';
import { checkCompanyFields } from './company-fields.js';

type CompanyCreate = components['schemas']['CompanyCreate'];
type CompanyUpdate = components['schemas']['CompanyUpdate'];

/** Which related rows to load with a company (expand=addresses,contacts). */
export interface CompanyExpand {
  addresses?: boolean;
  contacts?: boolean;
}

export const ADDRESS_ORDER = [
  { isDefault: 'desc' },
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.CompanyAddressOrderByWithRelationInput[];
export const CONTACT_ORDER = [
  { isPrimary: 'desc' },
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.CompanyContactOrderByWithRelationInput[];

/** The Prisma include of a company: its counts (always exact, counted when read) and the expanded relations, default/primary first. */
export function companyInclude(expand: CompanyExpand = {}) {
  return {
    _count: { select: { addresses: true, contacts: true } },
    ...(expand.addresses && { addresses: { orderBy: [...ADDRESS_ORDER] } }),
    ...(expand.contacts && { contacts: { orderBy: [...CONTACT_ORDER] } }),
  };
}

const UPDATABLE_FIELDS = [
  'type',
  'name',
  'handle',
  'email',
  'phone',
  'website',
  'tax_number',
  'tax_number_type',
  'currency',
  'payment_terms',
  'note',
  'external_id',
  'active_price_key',
  'metadata',
] as const;
const HANDLE_TAKEN = { handle: { field: 'handle', message: 'Another company already has this handle.' } };

/**
 * The live company of the project with its counts (and expanded relations); 404 "Company not found."
 * otherwise. With `lock`, its row stays locked for the transaction: writers of its addresses and contacts
 * queue behind each other, so one default address and one primary contact remain.
 */
export async function findCompany(
  ctx: Ctx,
  db: Database | Tx,
  id: string,
  expand: CompanyExpand = {},
  lock = false,
): Promise<CompanyRow> {
  if (lock) await lockRows(db, 'companies', { projectId: ctx.project.id, ids: [id] });
  const include = companyInclude(expand);
  return findOwned(
    ctx,
    { findUnique: (args) => db.company.findUnique({ ...args, include }) },
    id,
    'Company not found.',
  );
}

/** The company with its counts and the relations asked for. */
export async function getCompany(ctx: Ctx, id: string, expand: CompanyExpand): Promise<CompanyRow> {
  return findCompany(ctx, ctx.db, id, expand);
}

/** Creates a company (handle from the name unless sent; 409 when a sent handle is taken) and records company.created. */
export async function createCompany(ctx: Ctx, input: CompanyCreate): Promise<CompanyRow> {
  checkCompanyFields(input);
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const company = await tx.company.create({
      data: {
        id: newId('comp_'),
        projectId: ctx.project.id,
        type: input.type ?? 'supplier',
        name: input.name,
        sortName: input.name.toLowerCase(),
        handle: input.handle ?? (await allocateHandle(tx, ctx, 'company', input.name)),
        email: input.email ?? null,
        phone: input.phone ?? null,
        website: input.website ?? null,
        taxNumber: input.tax_number ?? null,
        taxNumberType: input.tax_number_type ?? null,
        currency: input.currency ?? null,
        paymentTerms: input.payment_terms ?? null,
        note: input.note ?? null,
        externalId: input.external_id ?? null,
        activePriceKey: input.active_price_key ?? null,
        metadata: input.metadata ?? {},
      },
      include: companyInclude(),
    });
    await recordEvent(tx, ctx, {
      type: 'company.created',
      resourceType: 'company',
      resourceId: company.id,
      summary: `Company "${company.name}" created`,
      payload: toCompanyResource(company),
    });
    return company;
  });
}

/** Applies the fields sent (metadata replaced) and records company.updated with the changes; unchanged input writes nothing. */
export async function updateCompany(ctx: Ctx, id: string, input: CompanyUpdate): Promise<CompanyRow> {
  checkCompanyFields(input);
  return writeTx(ctx, HANDLE_TAKEN, async (tx) => {
    const before = await findCompany(ctx, tx, id, {}, true);
    const data = {
      type: input.type,
      name: input.name,
      sortName: input.name?.toLowerCase(),
      handle: input.handle,
      email: input.email,
      phone: input.phone,
      website: input.website,
      taxNumber: input.tax_number,
      taxNumberType: input.tax_number_type,
      currency: input.currency,
      paymentTerms: input.payment_terms,
      note: input.note,
      externalId: input.external_id,
      activePriceKey: input.active_price_key,
      metadata: input.metadata as Prisma.InputJsonValue | undefined,
    };
    const sent = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
    const beforeResource = toCompanyResource(before);
    // Decided on the proposed state, so an unchanged PATCH writes nothing (updated_at stays).
    if (
      Object.keys(changedFields(beforeResource, toCompanyResource({ ...before, ...sent }), UPDATABLE_FIELDS)).length ===
      0
    )
      return before;
    const after = await tx.company.update({ where: { id }, data, include: companyInclude() });
    await recordChange(tx, ctx, {
      type: 'company.updated',
      resourceType: 'company',
      resourceId: id,
      label: `Company "${after.name}"`,
      before: beforeResource,
      after: toCompanyResource(after),
      fields: UPDATABLE_FIELDS,
    });
    return after;
  });
}

/** Soft delete: the company disappears from every query and frees its handle; records company.deleted. */
export async function deleteCompany(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const company = await findCompany(ctx, tx, id, {}, true);
    await tx.company.update({ where: { id }, data: { deletedAt: new Date() } });
    await recordEvent(tx, ctx, {
      type: 'company.deleted',
      resourceType: 'company',
      resourceId: id,
      summary: `Company "${company.name}" deleted`,
      payload: toCompanyResource(company),
    });
  });
}

const PART_FIELDS = ['address_count', 'contact_count', 'addresses', 'contacts'] as const;

/**
 * Runs a write of the company's addresses or contacts in one transaction with the company's row locked,
 * then records company.updated with what changed (counts and the address or contact lists; the payload
 * is the company with both expanded). 404 when the company is not a live company of the project.
 */
export async function writeCompanyPart<T>(ctx: Ctx, companyId: string, write: (tx: Tx) => Promise<T>): Promise<T> {
  return writeTx(ctx, {}, async (tx) => {
    const expand = { addresses: true, contacts: true };
    const before = await findCompany(ctx, tx, companyId, expand, true);
    const result = await write(tx);
    const after = await findCompany(ctx, tx, companyId, expand);
    await recordChange(tx, ctx, {
      type: 'company.updated',
      resourceType: 'company',
      resourceId: companyId,
      label: `Company "${after.name}"`,
      before: toCompanyResource(before),
      after: toCompanyResource(after),
      fields: PART_FIELDS,
    });
    return result;
  });
}
