import type { Tx } from '../../db/client.js';
import type { MetafieldDefinition } from '../../generated/prisma/client.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import { existingIds } from './owners.js';
import { checkValue, type Reference, type ReferenceKind, type ValueType } from './value-types.js';

/** One value of a batch, ready to write: null removes it. */
export interface PlannedValue {
  definition: MetafieldDefinition;
  value: unknown;
}

const NOUNS: Record<ReferenceKind, string> = {
  product: 'product',
  variant: 'variant',
  collection: 'collection',
  customer: 'customer',
  order: 'order',
  image: 'registered image',
  file: 'registered file',
  video: 'registered video file',
};

/**
 * Checks a batch of values keyed by slug against the owner type's active definitions (`bySlug`): unknown
 * slugs, clearing a required value, the value type and choices, and whether references name resources of
 * the project (one query per kind of reference). Answers the planned writes, or throws: 400
 * invalid_request with `field` = the slug for one invalid value, validation_error with a detail per slug
 * for several.
 */
export async function validateBatch(
  tx: Tx,
  projectId: string,
  ownerType: string,
  bySlug: Map<string, MetafieldDefinition>,
  input: Record<string, unknown>,
): Promise<PlannedValue[]> {
  const problems = new Map<string, string>();
  const planned: PlannedValue[] = [];
  const references: Array<Reference & { slug: string }> = [];
  for (const [slug, value] of Object.entries(input)) {
    const definition = bySlug.get(slug);
    if (!definition) {
      problems.set(slug, `${slug} is not an active ${ownerType} metafield definition.`);
    } else if (value === null) {
      if (definition.required) problems.set(slug, `${slug} is required; its value cannot be cleared.`);
      else planned.push({ definition, value });
    } else {
      const checked = checkValue(
        definition.valueType as ValueType,
        value,
        definition.choices.length > 0 ? definition.choices : null,
      );
      if (!checked.ok) problems.set(slug, `${slug}${checked.problem.path} ${checked.problem.message}.`);
      else {
        planned.push({ definition, value });
        references.push(...checked.references.map((reference) => ({ ...reference, slug })));
      }
    }
  }
  for (const kind of new Set(references.map((r) => r.kind))) {
    const ofKind = references.filter((r) => r.kind === kind);
    const found = await existingIds(
      tx,
      projectId,
      kind,
      ofKind.map((r) => r.id),
    );
    for (const { slug, path, id } of ofKind) {
      if (!found.has(id) && !problems.has(slug))
        problems.set(slug, `${slug}${path} names no ${NOUNS[kind]} of this project (${id}).`);
    }
  }
  if (problems.size > 0) throw batchError(problems);
  return planned;
}

function batchError(problems: Map<string, string>): AppError {
  const details: ErrorDetail[] = [...problems].map(([field, message]) => ({ field, message }));
  if (details.length === 1) return new AppError('invalid_request', details[0].message, { field: details[0].field });
  return new AppError('validation_error', `${details.length} metafield values are invalid; nothing was written.`, {
    details,
  });
}
