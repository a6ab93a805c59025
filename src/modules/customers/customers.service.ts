import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Customer, Prisma, Project } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { conflictOn, ownedOrNotFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { actorOf, changedFields, recordStoreEvent } from '../store-events/store-events.recorder.js';
import { toCustomerResource } from './customers.mappers.js';

type CustomerCreate = components['schemas']['CustomerCreate'];
type CustomerUpdate = components['schemas']['CustomerUpdate'];

const UPDATABLE_FIELDS = [
  'email', 'first_name', 'last_name', 'phone', 'company', 'status', 'tags', 'metadata',
  'active_price_key', 'locale', 'tax_number', 'tax_number_type',
] as const;

/** The stored key of the name sort: last name then first name, case-insensitive (U+0001 sorts before any letter). */
export const sortNameOf = (firstName: string, lastName: string) => `${lastName.toLowerCase()}\u0001${firstName.toLowerCase()}`;

const EMAIL_TAKEN = { email: { field: 'email', message: 'A customer with this email already exists.' } };

/** The customer of the project that is not deleted; 404 "Customer not found." otherwise. */
export async function findCustomer(db: Database | Tx, projectId: string, id: string, lock = false): Promise<Customer> {
  if (lock) {
    // Serialises writes that keep a per-customer invariant (one default address).
    await db.$queryRaw`SELECT id FROM customers WHERE id = ${id} AND project_id = ${projectId} FOR UPDATE`;
  }
  // By primary key (Prisma's cheapest read), then scoped here: another project's or a deleted customer is 404.
  return ownedOrNotFound(await db.customer.findUnique({ where: { id } }), projectId, 'Customer not found.');
}

/** The customer with its addresses, default first, when asked for. */
export async function getCustomer(db: Database, project: Project, id: string, withAddresses: boolean) {
  const customer = await findCustomer(db, project.id, id);
  const addresses = withAddresses
    ? await db.customerAddress.findMany({ where: { customerId: id }, orderBy: [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] })
    : undefined;
  return { customer, addresses };
}

/** Creates a customer and records customer.created, in one transaction; 409 when the email is taken. */
export async function createCustomer(db: Database, caller: KeyCaller, input: CustomerCreate): Promise<Customer> {
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const customer = await tx.customer.create({
        data: {
          id: newId('cus_'),
          projectId,
          email: input.email,
          emailNormalized: input.email.toLowerCase(),
          firstName: input.first_name,
          lastName: input.last_name,
          sortName: sortNameOf(input.first_name, input.last_name),
          phone: input.phone ?? null,
          company: input.company ?? null,
          status: input.status ?? 'active',
          tags: input.tags ?? [],
          metadata: (input.metadata ?? {}) as Prisma.InputJsonValue,
          activePriceKey: input.active_price_key ?? null,
          locale: input.locale ?? null,
          taxNumber: input.tax_number ?? null,
          taxNumberType: input.tax_number_type ?? null,
        },
      });
      await recordStoreEvent(tx, projectId, actorOf(caller), {
        type: 'customer.created',
        resourceType: 'customer',
        resourceId: customer.id,
        summary: `Customer ${customer.id} created`,
        payload: toCustomerResource(customer),
      });
      return customer;
    });
  } catch (error) {
    throw conflictOn(error, EMAIL_TAKEN);
  }
}

/** Applies the fields sent and records customer.updated with the changed fields; unchanged input writes nothing. */
export async function updateCustomer(db: Database, caller: KeyCaller, id: string, input: CustomerUpdate): Promise<Customer> {
  const projectId = caller.project.id;
  try {
    return await db.$transaction(async (tx) => {
      const before = await findCustomer(tx, projectId, id);
      const data: Prisma.CustomerUpdateInput = {
        email: input.email,
        emailNormalized: input.email?.toLowerCase(),
        firstName: input.first_name,
        lastName: input.last_name,
        sortName: sortNameOf(input.first_name ?? before.firstName, input.last_name ?? before.lastName),
        phone: input.phone,
        company: input.company,
        status: input.status,
        tags: input.tags,
        metadata: input.metadata as Prisma.InputJsonValue | undefined,
        activePriceKey: input.active_price_key,
        locale: input.locale,
        taxNumber: input.tax_number,
        taxNumberType: input.tax_number_type,
      };
      const proposed = toCustomerResource({ ...before, ...withoutUndefined(data) } as Customer);
      const changes = changedFields(toCustomerResource(before), proposed, UPDATABLE_FIELDS);
      if (Object.keys(changes).length === 0) return before;
      const after = await tx.customer.update({ where: { id }, data });
      await recordStoreEvent(tx, projectId, actorOf(caller), {
        type: 'customer.updated',
        resourceType: 'customer',
        resourceId: id,
        summary: `Customer ${id} updated (${Object.keys(changes).join(', ')})`,
        changes,
        payload: toCustomerResource(after),
      });
      return after;
    });
  } catch (error) {
    throw conflictOn(error, EMAIL_TAKEN);
  }
}

function withoutUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Soft delete: hidden from every query and the email freed at once; records customer.deleted. */
export async function deleteCustomer(db: Database, caller: KeyCaller, id: string): Promise<void> {
  const projectId = caller.project.id;
  await db.$transaction(async (tx) => {
    await findCustomer(tx, projectId, id);
    await tx.customer.update({ where: { id }, data: { deletedAt: new Date() } });
    await recordStoreEvent(tx, projectId, actorOf(caller), {
      type: 'customer.deleted',
      resourceType: 'customer',
      resourceId: id,
      summary: `Customer ${id} deleted`,
    });
  });
}

export const DELETED_CUSTOMER_RETENTION_DAYS = 30;

/**
 * Removes the personal data of customers deleted more than 30 days ago: the customers with their
 * addresses and notes, and the values in their store events' field changes (which fields changed stays).
 */
export async function purgeDeletedCustomers(db: Database): Promise<number> {
  const cutoff = new Date(Date.now() - DELETED_CUSTOMER_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  return db.$transaction(async (tx) => {
    const ids = (await tx.customer.findMany({ where: { deletedAt: { lt: cutoff } }, select: { id: true } })).map((c) => c.id);
    if (ids.length === 0) return 0;
    await tx.$executeRaw`
      UPDATE store_events
      SET metadata = jsonb_set(metadata, '{changes}', (
        SELECT coalesce(jsonb_object_agg(key, '{"from": "[redacted]", "to": "[redacted]"}'::jsonb), '{}'::jsonb)
        FROM jsonb_each(metadata->'changes')))
      WHERE resource_type = 'customer' AND resource_id = ANY(${ids}) AND metadata ? 'changes'`;
    const { count } = await tx.customer.deleteMany({ where: { id: { in: ids } } });
    return count;
  });
}
