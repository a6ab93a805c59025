import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { CustomerAddress } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { newPostalColumns, postalColumns } from '../../shared/postal-address.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { addressesOf, findCustomer } from './customers.service.js';

type AddressCreate = components['schemas']['CustomerAddressCreate'];
type AddressUpdate = components['schemas']['CustomerAddressUpdate'];

/** The customer's addresses, the default first, then oldest first. */
export async function listAddresses(ctx: Ctx, customerId: string): Promise<CustomerAddress[]> {
  await findCustomer(ctx, ctx.db, customerId);
  return addressesOf(ctx.db, customerId);
}

// Callers hold the customer's row lock, so concurrent default changes queue up and exactly one default remains.
async function clearDefault(tx: Tx, customerId: string): Promise<void> {
  await tx.customerAddress.updateMany({ where: { customerId, isDefault: true }, data: { isDefault: false } });
}

/** Adds an address; as the default it replaces the previous default in the same transaction. */
export async function createAddress(ctx: Ctx, customerId: string, input: AddressCreate): Promise<CustomerAddress> {
  return writeTx(ctx, {}, async (tx) => {
    await findCustomer(ctx, tx, customerId, true);
    if (input.is_default) await clearDefault(tx, customerId);
    return tx.customerAddress.create({
      data: {
        id: newId('addr_'),
        customerId,
        company: input.company ?? null,
        ...newPostalColumns(input),
        isDefault: input.is_default ?? false,
      },
    });
  });
}

// Addresses carry no project id: they are the project's when their customer is a live customer of it.
async function findAddress(ctx: Ctx, tx: Tx, id: string): Promise<CustomerAddress> {
  const address = await tx.customerAddress.findFirst({
    where: { id, customer: { projectId: ctx.project.id, deletedAt: null } },
  });
  if (!address) throw notFound('Address not found.');
  return address;
}

/** Applies the fields sent; `is_default: true` makes it the customer's only default. */
export async function updateAddress(ctx: Ctx, id: string, input: AddressUpdate): Promise<CustomerAddress> {
  return writeTx(ctx, {}, async (tx) => {
    const { customerId } = await findAddress(ctx, tx, id);
    await findCustomer(ctx, tx, customerId, true);
    if (input.is_default) await clearDefault(tx, customerId);
    return tx.customerAddress.update({
      where: { id },
      data: {
        company: input.company,
        ...postalColumns(input),
        isDefault: input.is_default,
      },
    });
  });
}

/** Deletes the address. */
export async function deleteAddress(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findAddress(ctx, tx, id);
    await tx.customerAddress.delete({ where: { id } });
  });
}
