import type { Database, Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { MetafieldDefinition } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { nextNumber } from '../../shared/counters.js';
import { conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { lockOwnerTypeDefinitions } from './metafields.sql.js';
import type { OwnerType } from './owners.js';
import { generatedSlug } from './slugs.js';
import { choicesProblem, type ValueType } from './value-types.js';

type DefinitionCreate = components['schemas']['MetafieldDefinitionCreate'];
type DefinitionUpdate = components['schemas']['MetafieldDefinitionUpdate'];

// The partial unique index on (project, owner type, slug) among active definitions backs the checks below.
const SLUG_TAKEN = {
  slug: { field: 'slug', message: 'An active metafield definition of this owner type already has this slug.' },
};

const slugTaken = (ownerType: string, slug: string) =>
  conflict(`An active ${ownerType} metafield definition already has the slug ${slug}.`, 'slug');

/**
 * Serialises the definition writes of one owner type of a project (slugs and positions are per owner
 * type) until the transaction ends.
 */
async function lockOwnerType(tx: Tx, ctx: Ctx, ownerType: string): Promise<void> {
  await lockOwnerTypeDefinitions(tx, ctx.project.id, ownerType);
}

/** The owner type's active definitions, by position. */
export function activeDefinitions(
  db: Database | Tx,
  projectId: string,
  ownerType: string,
): Promise<MetafieldDefinition[]> {
  return db.metafieldDefinition.findMany({
    where: { projectId, ownerType, archivedAt: null },
    orderBy: [{ position: 'asc' }, { id: 'asc' }],
  });
}

/** The project's active definitions (of one owner type when given), by owner type and position. */
export function listDefinitions(ctx: Ctx, ownerType?: OwnerType): Promise<MetafieldDefinition[]> {
  return ctx.db.metafieldDefinition.findMany({
    where: { projectId: ctx.project.id, ownerType, archivedAt: null },
    orderBy: [{ ownerType: 'asc' }, { position: 'asc' }, { id: 'asc' }],
  });
}

/**
 * The definition a path names: by id (`mfd_...`, whatever its state), else by slug: the owner type's
 * active definition with it, else the one most recently archived with it; 404 otherwise.
 */
export async function findDefinition(
  ctx: Ctx,
  db: Database | Tx,
  ownerType: string,
  slugOrId: string,
): Promise<MetafieldDefinition> {
  const where = { projectId: ctx.project.id, ownerType };
  const byId = slugOrId.startsWith('mfd_')
    ? await db.metafieldDefinition.findFirst({ where: { ...where, id: slugOrId } })
    : null;
  const definition =
    byId ??
    (await db.metafieldDefinition.findFirst({
      where: { ...where, slug: slugOrId },
      orderBy: [{ archivedAt: { sort: 'desc', nulls: 'first' } }, { id: 'desc' }],
    }));
  if (!definition) throw notFound('Metafield definition not found.');
  return definition;
}

function checkChoices(valueType: string, choices: string[] | null | undefined): void {
  if (!choices) return;
  const problem = choicesProblem(valueType as ValueType, choices);
  if (problem) throw invalidField('choices', problem);
}

/**
 * Creates a definition with the project's next key (mf_N), a slug free among the owner type's active
 * definitions (generated from the label when not sent; 409 when a sent one is taken), inserted at
 * `position` (default and at most: the end) with the later ones moved down.
 */
export async function createDefinition(ctx: Ctx, input: DefinitionCreate): Promise<MetafieldDefinition> {
  const projectId = ctx.project.id;
  const ownerType = input.owner_type;
  checkChoices(input.value_type, input.choices);
  return writeTx(ctx, SLUG_TAKEN, async (tx) => {
    await lockOwnerType(tx, ctx, ownerType);
    const active = await activeDefinitions(tx, projectId, ownerType);
    const taken = active.map((d) => d.slug);
    if (input.slug !== undefined && taken.includes(input.slug)) throw slugTaken(ownerType, input.slug);
    const key = `mf_${await nextNumber(tx, projectId, 'metafield_key', 1)}`;
    const position = Math.min(input.position ?? active.length, active.length);
    await tx.metafieldDefinition.updateMany({
      where: { projectId, ownerType, archivedAt: null, position: { gte: position } },
      data: { position: { increment: 1 } },
    });
    return tx.metafieldDefinition.create({
      data: {
        id: newId('mfd_'),
        projectId,
        key,
        slug: input.slug ?? generatedSlug(input.label, taken, key),
        label: input.label,
        description: input.description ?? null,
        ownerType,
        valueType: input.value_type,
        choices: input.choices ?? [],
        position,
        required: input.required ?? false,
        storefrontVisible: input.storefront_visible ?? true,
      },
    });
  });
}

/**
 * Applies the fields sent. Archiving frees the slug and closes the gap in the positions; restoring puts
 * the definition at the end and is 409 when an active definition has the slug it would take (the sent
 * one, else its own).
 */
export async function updateDefinition(
  ctx: Ctx,
  ownerType: OwnerType,
  slugOrId: string,
  input: DefinitionUpdate,
): Promise<MetafieldDefinition> {
  return writeTx(ctx, SLUG_TAKEN, async (tx) => {
    await lockOwnerType(tx, ctx, ownerType);
    const before = await findDefinition(ctx, tx, ownerType, slugOrId);
    checkChoices(before.valueType, input.choices);
    const wasActive = before.archivedAt === null;
    const archiving = wasActive && input.archived === true;
    const restoring = !wasActive && input.archived === false;
    const slug = input.slug ?? before.slug;
    if ((restoring || (wasActive && !archiving && slug !== before.slug)) && (await slugHolder(tx, before, slug))) {
      if (restoring && input.slug === undefined) {
        throw conflict(
          `Another ${ownerType} metafield definition took the slug ${slug} while this one was archived. Restore it with a new slug: send archived false and a free slug.`,
          'slug',
        );
      }
      throw slugTaken(ownerType, slug);
    }
    let position: number | undefined;
    if (archiving) await closeGap(tx, before);
    if (restoring)
      position = await tx.metafieldDefinition.count({
        where: { projectId: before.projectId, ownerType, archivedAt: null },
      });
    return tx.metafieldDefinition.update({
      where: { id: before.id },
      data: {
        label: input.label,
        slug: input.slug,
        description: input.description,
        choices: input.choices === null ? [] : input.choices,
        required: input.required,
        storefrontVisible: input.storefront_visible,
        archivedAt: archiving ? new Date() : restoring ? null : undefined,
        position,
      },
    });
  });
}

/** Archives the definition (its values stay, hidden); an archived one stays as it is. */
export async function archiveDefinition(ctx: Ctx, ownerType: OwnerType, slugOrId: string): Promise<void> {
  await updateDefinition(ctx, ownerType, slugOrId, { archived: true });
}

// Another active definition of the owner type with this slug.
function slugHolder(tx: Tx, definition: MetafieldDefinition, slug: string) {
  return tx.metafieldDefinition.findFirst({
    where: {
      projectId: definition.projectId,
      ownerType: definition.ownerType,
      slug,
      archivedAt: null,
      id: { not: definition.id },
    },
    select: { id: true },
  });
}

// The active definitions after a leaving one move up, so positions stay 0, 1, 2, ...
async function closeGap(tx: Tx, leaving: MetafieldDefinition): Promise<void> {
  await tx.metafieldDefinition.updateMany({
    where: {
      projectId: leaving.projectId,
      ownerType: leaving.ownerType,
      archivedAt: null,
      position: { gt: leaving.position },
    },
    data: { position: { decrement: 1 } },
  });
}

/**
 * Gives the owner type's active definitions the positions of `order`, which must list each of their ids
 * exactly once (400 on `order` naming the missing and the unknown ones); answers them in the new order.
 */
export async function reorderDefinitions(
  ctx: Ctx,
  ownerType: OwnerType,
  order: string[],
): Promise<MetafieldDefinition[]> {
  return writeTx(ctx, {}, async (tx) => {
    await lockOwnerType(tx, ctx, ownerType);
    const active = await activeDefinitions(tx, ctx.project.id, ownerType);
    const ids = new Set(active.map((d) => d.id));
    const missing = active.filter((d) => !order.includes(d.id)).map((d) => d.id);
    const extra = order.filter((id) => !ids.has(id));
    if (missing.length > 0 || extra.length > 0) {
      throw invalidField(
        'order',
        `order must list every active ${ownerType} definition once.` +
          (missing.length > 0 ? ` Missing: ${missing.join(', ')}.` : '') +
          (extra.length > 0 ? ` Not active definitions of this owner type: ${extra.join(', ')}.` : ''),
      );
    }
    for (const [position, id] of order.entries()) {
      if (active.find((d) => d.id === id)!.position !== position)
        await tx.metafieldDefinition.update({ where: { id }, data: { position } });
    }
    return activeDefinitions(tx, ctx.project.id, ownerType);
  });
}
