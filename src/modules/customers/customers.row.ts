import type { components } from '../../generated/openapi.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';

type CustomerCreate = components['schemas']['CustomerCreate'];

/** The stored key of the name sort: last name then first name, case-insensitive (U+0001 sorts before any letter). */
export const sortNameOf = (firstName: string, lastName: string) =>
  `${lastName.toLowerCase()}\u0001${firstName.toLowerCase()}`;

/** The row a new customer is stored as, created and updated at `at`. `passwordHash` never leaves the row. */
export function customerRow(ctx: Pick<Ctx, 'project'>, input: CustomerCreate, passwordHash: string | null, at: Date) {
  return {
    id: newId('cus_'),
    projectId: ctx.project.id,
    email: input.email,
    emailNormalized: input.email.toLowerCase(),
    firstName: input.first_name,
    lastName: input.last_name,
    sortName: sortNameOf(input.first_name, input.last_name),
    phone: input.phone ?? null,
    company: input.company ?? null,
    status: input.status ?? 'active',
    tags: input.tags ?? [],
    metadata: (input.metadata ?? {}) as Prisma.InputJsonObject,
    activePriceKey: input.active_price_key ?? null,
    locale: input.locale ?? null,
    taxNumber: input.tax_number ?? null,
    taxNumberType: input.tax_number_type ?? null,
    passwordHash,
    updatedAt: at,
  };
}

/** A new customer's row, as customerRow builds it. */
export type CustomerRow = ReturnType<typeof customerRow>;
