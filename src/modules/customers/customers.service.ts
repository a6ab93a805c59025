import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Customer, CustomerAddress, Prisma } from '../../generated/prisma/client.js';
import { poolOf, type Database } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { findOwned } from '../../shared/owned.js';
import { lockRows, writeTx } from '../../shared/write.js';
import { conflictOn, notFound } from '../../shared/errors.js';
import { deleteValuesOf } from '../metafields/index.js';
import {
  changedFields,
  eventHasSubscribers,
  recordChange,
  recordEvent,
  redactChangesOf,
  storeEventRow,
  type StoreEventInput,
} from '../store-events/index.js';
import { toCustomerResource, type CustomerFields, type CustomerResource } from './customers.mappers.js';
import { customerRow, sortNameOf } from './customers.row.js';
import { insertCustomerWithEvent, liveCustomerById } from './customers.statements.js';

type CustomerCreate = components['schemas']['CustomerCreate'];
type CustomerUpdate = components['schemas']['CustomerUpdate'];

const UPDATABLE_FIELDS = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'company',
  'status',
  'tags',
  'metadata',
  'active_price_key',
  'locale',
  'tax_number',
  'tax_number_type',
] as const;

const EMAIL_TAKEN = { email: { field: 'email', message: 'A customer with this email already exists.' } };
const ADDRESS_ORDER = [
  { isDefault: 'desc' },
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.CustomerAddressOrderByWithRelationInput[];

/** The live customer of the project; 404 "Customer not found." otherwise. With `lock`, its row stays locked for the transaction. */
export async function findCustomer(ctx: Ctx, db: Database | Tx, id: string, lock = false): Promise<Customer> {
  // Serialises writes that keep a per-customer invariant (one default address, order figures).
  if (lock) await lockRows(db, 'customers', { projectId: ctx.project.id, ids: [id] });
  return findOwned(ctx, db.customer, id, 'Customer not found.');
}

/** The customer's addresses, the default first, then oldest first. */
export function addressesOf(db: Database | Tx, customerId: string): Promise<CustomerAddress[]> {
  return db.customerAddress.findMany({ where: { customerId }, orderBy: [...ADDRESS_ORDER] });
}

/**
 * The live customer of the project, with its addresses (default first) when asked; 404 "Customer not found."
 * otherwise. Outside a transaction the read is a prepared statement (customers.statements.ts).
 */
export async function getCustomer(ctx: Ctx, id: string, withAddresses: boolean) {
  const pool = poolOf(ctx.db);
  const customer = pool ? await liveCustomerById(pool, ctx.project.id, id) : await findCustomer(ctx, ctx.db, id);
  if (!customer) throw notFound('Customer not found.');
  return { customer, addresses: withAddresses ? await addressesOf(ctx.db, id) : undefined };
}

/**
 * Creates a customer and records customer.created atomically; 409 when the email is taken. When no
 * subscriber listens to customer.created (no webhook subscription), both rows go in one statement;
 * otherwise, or inside a caller's transaction, in one transaction with the subscribers' work.
 */
export async function createCustomer(ctx: Ctx, input: CustomerCreate): Promise<CustomerFields> {
  const pool = poolOf(ctx.db);
  if (!pool || (await eventHasSubscribers(ctx.db, ctx, 'customer.created')))
    return writeTx(ctx, EMAIL_TAKEN, (tx) => insertCustomer(tx, ctx, input));
  const at = new Date();
  const row = customerRow(ctx, input, null, at);
  try {
    return await insertCustomerWithEvent(pool, row, storeEventRow(ctx, createdEvent(row.id)), at);
  } catch (error) {
    throw conflictOn(error, EMAIL_TAKEN);
  } finally {
    // Also after a failure: a commit whose answer was lost still changed the data.
    ctx.caches?.versions.projectWritten(ctx.project.id);
  }
}

/** The customer.created store event of a new customer (with its resource as payload when there is one for subscribers). */
function createdEvent(customerId: string, payload?: CustomerResource): StoreEventInput {
  return {
    type: 'customer.created',
    resourceType: 'customer',
    resourceId: customerId,
    summary: `Customer ${customerId} created`,
    payload,
  };
}

/**
 * Inserts a customer and records customer.created in the caller's transaction (whose unique email
 * violation the caller maps). `passwordHash` is for storefront registration; it never leaves the row.
 */
export async function insertCustomer(
  tx: Tx,
  ctx: Ctx,
  input: CustomerCreate,
  passwordHash: string | null = null,
): Promise<Customer> {
  const at = new Date();
  const customer = await tx.customer.create({ data: { ...customerRow(ctx, input, passwordHash, at), createdAt: at } });
  await recordEvent(tx, ctx, createdEvent(customer.id, toCustomerResource(customer)));
  return customer;
}

/** Applies the fields sent and records customer.updated with the changed fields; unchanged input writes nothing. */
export async function updateCustomer(ctx: Ctx, id: string, input: CustomerUpdate): Promise<Customer> {
  return writeTx(ctx, EMAIL_TAKEN, async (tx) => {
    const before = await findCustomer(ctx, tx, id);
    const data: Prisma.CustomerUpdateInput = {
      email: input.email,
      emailNormalized: input.email?.toLowerCase(),
      // A new address is not verified yet (customer auth: a reset link proves an address).
      emailVerified:
        input.email !== undefined && input.email.toLowerCase() !== before.emailNormalized ? false : undefined,
      firstName: input.first_name,
      lastName: input.last_name,
      sortName: sortNameOf(input.first_name ?? before.firstName, input.last_name ?? before.lastName),
      phone: input.phone,
      company: input.company,
      status: input.status,
      tags: input.tags,
      metadata: input.metadata,
      activePriceKey: input.active_price_key,
      locale: input.locale,
      taxNumber: input.tax_number,
      taxNumberType: input.tax_number_type,
    };
    const proposed = toCustomerResource({ ...before, ...withoutUndefined(data) } as Customer);
    const beforeResource = toCustomerResource(before);
    // Decided on the proposed state, so an unchanged PATCH writes nothing (updated_at stays).
    if (Object.keys(changedFields(beforeResource, proposed, UPDATABLE_FIELDS)).length === 0) return before;
    const after = await tx.customer.update({ where: { id }, data });
    // An inactive customer cannot sign in: their live sessions end with the change (access tokens at once).
    if (before.status !== 'inactive' && after.status === 'inactive') {
      await tx.customerSession.updateMany({
        where: { customerId: id, revokedAt: null },
        data: { revokedAt: new Date(), revokedReason: 'deactivated' },
      });
    }
    await recordChange(tx, ctx, {
      type: 'customer.updated',
      resourceType: 'customer',
      resourceId: id,
      label: `Customer ${id}`,
      before: beforeResource,
      after: toCustomerResource(after),
      fields: UPDATABLE_FIELDS,
    });
    return after;
  });
}

function withoutUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Soft delete: hidden from every query and the email freed at once; records customer.deleted. */
export async function deleteCustomer(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    const customer = await findCustomer(ctx, tx, id);
    await tx.customer.update({ where: { id }, data: { deletedAt: new Date() } });
    await recordEvent(tx, ctx, {
      type: 'customer.deleted',
      resourceType: 'customer',
      resourceId: id,
      summary: `Customer ${id} deleted`,
      payload: toCustomerResource(customer), // the last state
    });
  });
}

export const DELETED_CUSTOMER_RETENTION_DAYS = 30;

/**
 * Removes the personal data of customers deleted more than 30 days ago, in every project: the customers
 * with their addresses, notes and metafield values, and the values in their store events' field changes
 * (which fields changed stays). A maintenance job, not a project's operation: it takes the database, not a Ctx.
 */
export async function purgeDeletedCustomers(db: Database): Promise<number> {
  const cutoff = new Date(Date.now() - DELETED_CUSTOMER_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  return db.$transaction(async (tx) => {
    const ids = (await tx.customer.findMany({ where: { deletedAt: { lt: cutoff } }, select: { id: true } })).map(
      (c) => c.id,
    );
    if (ids.length === 0) return 0;
    await redactChangesOf(tx, 'customer', ids);
    await deleteValuesOf(tx, ids);
    const { count } = await tx.customer.deleteMany({ where: { id: { in: ids } } });
    return count;
  });
}
