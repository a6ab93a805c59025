import type { Tx } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { activeDefinitions } from './definitions.service.js';
import { toValueObject, type MetafieldValues, type ValueObject } from './metafields.mappers.js';
import { requireOwner, type OwnerType } from './owners.js';
import { hasCustomData, loadValues } from './values.load.js';
import { validateBatch, type PlannedValue } from './values.validate.js';

function requireCustomData(ctx: Ctx): void {
  if (!hasCustomData(ctx)) {
    throw new AppError(
      'invalid_request',
      'The custom_data extension is not enabled for this project. Enable it to write metafield values.',
    );
  }
}

/** The owner's values in the caller's mode (404 for an owner the caller cannot see); `{}` without the custom_data extension. */
export async function readValues(ctx: Ctx, ownerType: OwnerType, ownerId: string): Promise<MetafieldValues> {
  await requireOwner(ctx, ctx.db, ownerType, ownerId);
  if (!hasCustomData(ctx)) return {};
  return (await loadValues(ctx, ctx.db, ownerType, [ownerId])).get(ownerId) ?? {};
}

// The owner type's active definitions by slug, after checking the extension and the owner.
async function definitionsFor(ctx: Ctx, tx: Tx, ownerType: OwnerType, ownerId: string) {
  await requireOwner(ctx, tx, ownerType, ownerId);
  return new Map((await activeDefinitions(tx, ctx.project.id, ownerType)).map((d) => [d.slug, d]));
}

async function write(tx: Tx, ctx: Ctx, ownerId: string, planned: PlannedValue[]): Promise<void> {
  for (const { definition, value } of planned) {
    const key = { ownerId, mode: ctx.mode, definitionId: definition.id };
    if (value === null) await tx.metafieldValue.deleteMany({ where: key });
    else {
      const json = value as Prisma.InputJsonValue;
      await tx.metafieldValue.upsert({
        where: { ownerId_mode_definitionId: key },
        create: { ...key, value: json },
        update: { value: json },
      });
    }
  }
}

/**
 * Writes a batch of values keyed by slug in the caller's mode (null removes one; slugs not sent stay), all
 * or nothing: any invalid value rejects the batch before anything is written (see validateBatch). Answers
 * all of the owner's values afterwards.
 */
export async function writeValues(
  ctx: Ctx,
  ownerType: OwnerType,
  ownerId: string,
  input: Record<string, unknown>,
): Promise<MetafieldValues> {
  requireCustomData(ctx);
  return writeTx(ctx, {}, async (tx) => {
    const bySlug = await definitionsFor(ctx, tx, ownerType, ownerId);
    await write(tx, ctx, ownerId, await validateBatch(tx, ctx.project.id, ownerType, bySlug, input));
    return (await loadValues(ctx, tx, ownerType, [ownerId])).get(ownerId) ?? {};
  });
}

/** Deletes every value (both modes) of the given owners: for resources that are removed for good. */
export async function deleteValuesOf(tx: Tx, ownerIds: string[]): Promise<void> {
  await tx.metafieldValue.deleteMany({ where: { ownerId: { in: ownerIds } } });
}

const noDefinition = (ownerType: string, slug: string) =>
  notFound(`No active ${ownerType} metafield definition has the slug ${slug}.`);

/** Creates or replaces one value in the caller's mode (404 for an unknown slug; 400 on the slug for an invalid value). */
export async function writeValue(
  ctx: Ctx,
  ownerType: OwnerType,
  ownerId: string,
  slug: string,
  value: unknown,
): Promise<ValueObject> {
  requireCustomData(ctx);
  return writeTx(ctx, {}, async (tx) => {
    const bySlug = await definitionsFor(ctx, tx, ownerType, ownerId);
    const definition = bySlug.get(slug);
    if (!definition) throw noDefinition(ownerType, slug);
    if (value === null) throw invalidField(slug, `${slug} must have a value; DELETE removes a value.`);
    await write(tx, ctx, ownerId, await validateBatch(tx, ctx.project.id, ownerType, bySlug, { [slug]: value }));
    return toValueObject(definition, value);
  });
}

/** Removes one value in the caller's mode (nothing to remove is fine); 400 for a required definition. */
export async function removeValue(ctx: Ctx, ownerType: OwnerType, ownerId: string, slug: string): Promise<void> {
  requireCustomData(ctx);
  await writeTx(ctx, {}, async (tx) => {
    const definition = (await definitionsFor(ctx, tx, ownerType, ownerId)).get(slug);
    if (!definition) throw noDefinition(ownerType, slug);
    if (definition.required) throw invalidField(slug, `${slug} is required; its value cannot be removed.`);
    await tx.metafieldValue.deleteMany({ where: { ownerId, mode: ctx.mode, definitionId: definition.id } });
  });
}
