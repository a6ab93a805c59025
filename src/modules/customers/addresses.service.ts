import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { CustomerAddress } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
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

// An address book, not a log: the lists are not paginated (and a signed-in shopper could otherwise grow one without
// bound). Shopify caps a customer's addresses too.
export const MAX_ADDRESSES_PER_CUSTOMER = 100;

/**
 * Adds an address (400 when the customer already has MAX_ADDRESSES_PER_CUSTOMER; counted under the customer's row
 * lock, so concurrent adds cannot pass it); as the default it replaces the previous default in the same transaction.
 */
export async function createAddress(ctx: Ctx, customerId: string, input: AddressCreate): Promise<CustomerAddress> {
  return writeTx(ctx, {}, async (tx) => {
    await findCustomer(ctx, tx, customerId, true);
    if ((await tx.customerAddress.count({ where: { customerId } })) >= MAX_ADDRESSES_PER_CUSTOMER) {
      throw new AppError(
        'invalid_request',
        `A customer has at most ${MAX_ADDRESSES_PER_CUSTOMER} addresses; delete one before adding another.`,
      );
    }
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

/**
 * Whose addresses an operation may reach: any live customer's of the project (the merchant's operations), or only
 * this customer's (`/v1/me/addresses`, the signed-in customer's id), so another's answers 404 as a missing one.
 */
export type AddressOwner = { customerId: string } | 'any';

// Addresses carry no project id: they are the project's when their customer is a live customer of it.
async function findAddress(ctx: Ctx, tx: Tx | Ctx['db'], id: string, owner: AddressOwner): Promise<CustomerAddress> {
  const address = await tx.customerAddress.findFirst({
    where: {
      id,
      ...(owner !== 'any' && { customerId: owner.customerId }),
      customer: { projectId: ctx.project.id, deletedAt: null },
    },
  });
  if (!address) throw notFound('Address not found.');
  return address;
}

/** One address of `owner`; 404 "Address not found." otherwise. */
export async function getAddress(ctx: Ctx, id: string, owner: AddressOwner): Promise<CustomerAddress> {
  return findAddress(ctx, ctx.db, id, owner);
}

/** Applies the fields sent; `is_default: true` makes it the customer's only default. */
export async function updateAddress(
  ctx: Ctx,
  id: string,
  input: AddressUpdate,
  owner: AddressOwner = 'any',
): Promise<CustomerAddress> {
  return writeTx(ctx, {}, async (tx) => {
    const { customerId } = await findAddress(ctx, tx, id, owner);
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

/** Deletes the address (a deleted default leaves the customer without one). */
export async function deleteAddress(ctx: Ctx, id: string, owner: AddressOwner = 'any'): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findAddress(ctx, tx, id, owner);
    await tx.customerAddress.delete({ where: { id } });
  });
}
