import type { components } from '../../generated/openapi.js';
import type { Company, CompanyAddress, CompanyContact } from '../../generated/prisma/client.js';
import { postalFields } from '../../shared/postal-address.js';

type Schemas = components['schemas'];
export type CompanyResource = Schemas['Company'];
export type CompanyAddressResource = Schemas['CompanyAddress'];
export type CompanyContactResource = Schemas['CompanyContact'];

/** A company row with its counts (Prisma `_count`) and, when loaded, its addresses and contacts. */
export type CompanyRow = Company & {
  _count: { addresses: number; contacts: number };
  addresses?: CompanyAddress[];
  contacts?: CompanyContact[];
};

/** A company as the API shows it; addresses and contacts only when they were loaded (expand). */
export function toCompanyResource(company: CompanyRow): CompanyResource {
  return {
    id: company.id,
    type: company.type as CompanyResource['type'],
    name: company.name,
    handle: company.handle,
    email: company.email,
    phone: company.phone,
    website: company.website,
    tax_number: company.taxNumber,
    tax_number_type: company.taxNumberType as CompanyResource['tax_number_type'],
    currency: company.currency,
    payment_terms: company.paymentTerms as CompanyResource['payment_terms'],
    note: company.note,
    external_id: company.externalId,
    active_price_key: company.activePriceKey,
    address_count: company._count.addresses,
    contact_count: company._count.contacts,
    metadata: company.metadata as Record<string, unknown>,
    ...(company.addresses && { addresses: company.addresses.map(toCompanyAddressResource) }),
    ...(company.contacts && { contacts: company.contacts.map(toCompanyContactResource) }),
    created_at: company.createdAt.toISOString(),
    updated_at: company.updatedAt.toISOString(),
  };
}

/** A company address as the API shows it. */
export function toCompanyAddressResource(address: CompanyAddress): CompanyAddressResource {
  return {
    id: address.id,
    company_id: address.companyId,
    label: address.label,
    ...postalFields(address),
    is_default: address.isDefault,
    created_at: address.createdAt.toISOString(),
    updated_at: address.updatedAt.toISOString(),
  };
}

/** A company contact as the API shows it. */
export function toCompanyContactResource(contact: CompanyContact): CompanyContactResource {
  return {
    id: contact.id,
    company_id: contact.companyId,
    name: contact.name,
    email: contact.email,
    phone: contact.phone,
    role: contact.role,
    is_primary: contact.isPrimary,
    customer_id: contact.customerId,
    created_at: contact.createdAt.toISOString(),
    updated_at: contact.updatedAt.toISOString(),
  };
}
