import type { components } from '../../generated/openapi.js';
import type { Customer, CustomerAddress, CustomerNote } from '../../generated/prisma/client.js';
import { postalFields } from '../../shared/postal-address.js';

type Schemas = components['schemas'];
export type CustomerResource = Schemas['Customer'];
export type AddressResource = Schemas['CustomerAddress'];
export type NoteResource = Schemas['CustomerNote'];

/** The stored fields a customer resource shows (what prepared reads of customers return). */
export type CustomerFields = Pick<
  Customer,
  | 'id'
  | 'email'
  | 'firstName'
  | 'lastName'
  | 'phone'
  | 'company'
  | 'status'
  | 'orderCount'
  | 'totalSpent'
  | 'firstOrderAt'
  | 'lastOrderAt'
  | 'tags'
  | 'metadata'
  | 'activePriceKey'
  | 'locale'
  | 'taxNumber'
  | 'taxNumberType'
  | 'createdAt'
  | 'updatedAt'
>;

/** A customer as the API shows it; addresses only when given (expand=addresses). */
export function toCustomerResource(customer: CustomerFields, addresses?: CustomerAddress[]): CustomerResource {
  return {
    id: customer.id,
    email: customer.email,
    first_name: customer.firstName,
    last_name: customer.lastName,
    phone: customer.phone,
    company: customer.company,
    status: customer.status as CustomerResource['status'],
    order_count: customer.orderCount,
    total_spent: Number(customer.totalSpent),
    first_order_at: customer.firstOrderAt?.toISOString() ?? null,
    last_order_at: customer.lastOrderAt?.toISOString() ?? null,
    tags: customer.tags,
    metadata: customer.metadata as Record<string, unknown>,
    active_price_key: customer.activePriceKey,
    locale: customer.locale,
    tax_number: customer.taxNumber,
    tax_number_type: customer.taxNumberType as CustomerResource['tax_number_type'],
    ...(addresses && { addresses: addresses.map(toAddressResource) }),
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.updatedAt.toISOString(),
  };
}

/** A customer address as the API shows it. */
export function toAddressResource(address: CustomerAddress): AddressResource {
  return {
    id: address.id,
    customer_id: address.customerId,
    company: address.company,
    ...postalFields(address),
    is_default: address.isDefault,
    created_at: address.createdAt.toISOString(),
    updated_at: address.updatedAt.toISOString(),
  };
}

/** A customer note as the API shows it. */
export function toNoteResource(note: CustomerNote): NoteResource {
  return {
    id: note.id,
    customer_id: note.customerId,
    content: note.content,
    author_type: note.authorType as NoteResource['author_type'],
    author_id: note.authorId,
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}
