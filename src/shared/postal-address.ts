/** The postal part of an address as the API writes it (customer and company addresses share it). */
export interface PostalAddressInput {
  first_name?: string | null;
  last_name?: string | null;
  line1?: string;
  line2?: string | null;
  city?: string;
  state?: string | null;
  postal_code?: string | null;
  country?: string;
  phone?: string | null;
}

/** The same fields as stored (Prisma's column names). */
export interface PostalAddressRow {
  firstName: string | null;
  lastName: string | null;
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postalCode: string | null;
  country: string;
  phone: string | null;
}

/** Columns for a PATCH: only the fields sent (undefined leaves a column alone, null clears it). */
export function postalColumns(input: PostalAddressInput): Partial<PostalAddressRow> {
  return {
    firstName: input.first_name,
    lastName: input.last_name,
    line1: input.line1,
    line2: input.line2,
    city: input.city,
    state: input.state,
    postalCode: input.postal_code,
    country: input.country,
    phone: input.phone,
  };
}

/** Columns for a create: the optional fields not sent are null. */
export function newPostalColumns(
  input: PostalAddressInput & { line1: string; city: string; country: string },
): PostalAddressRow {
  const columns = postalColumns(input);
  return {
    firstName: columns.firstName ?? null,
    lastName: columns.lastName ?? null,
    line1: input.line1,
    line2: columns.line2 ?? null,
    city: input.city,
    state: columns.state ?? null,
    postalCode: columns.postalCode ?? null,
    country: input.country,
    phone: columns.phone ?? null,
  };
}

/** The postal fields of a stored address as the API shows them. */
export function postalFields(row: PostalAddressRow) {
  return {
    first_name: row.firstName,
    last_name: row.lastName,
    line1: row.line1,
    line2: row.line2,
    city: row.city,
    state: row.state,
    postal_code: row.postalCode,
    country: row.country,
    phone: row.phone,
  };
}
