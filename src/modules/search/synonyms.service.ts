import type { components } from '../../generated/openapi.js';
import type { SynonymGroup } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';

type SynonymGroupCreate = components['schemas']['SynonymGroupCreate'];
type SynonymGroupUpdate = components['schemas']['SynonymGroupUpdate'];

/** A group holds at least this many terms as stored (openapi.yaml, `SynonymTerms`). */
const MIN_TERMS = 2;

/**
 * The terms as stored: lowercased and trimmed, inner spaces collapsed, repeats removed (order kept: a oneway group's
 * first term matters); 400 on `terms` when fewer than two different terms remain.
 */
function cleanTerms(terms: string[]): string[] {
  const cleaned = [...new Set(terms.map((t) => t.toLowerCase().replace(/\s+/g, ' ').trim()))];
  if (cleaned.length < MIN_TERMS) {
    throw invalidField(
      'terms',
      `A synonym group needs at least ${MIN_TERMS} different terms; terms that differ only in case or spacing are one term.`,
    );
  }
  return cleaned;
}

/** The project's synonym groups, oldest first. */
export async function listSynonymGroups(ctx: Ctx): Promise<SynonymGroup[]> {
  return ctx.db.synonymGroup.findMany({
    where: { projectId: ctx.project.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Creates a group; the next search uses it (writeTx: this process's cached answers are stale at once, not when the notification arrives). */
export async function createSynonymGroup(ctx: Ctx, input: SynonymGroupCreate): Promise<SynonymGroup> {
  return writeTx(ctx, {}, (tx) =>
    tx.synonymGroup.create({
      data: {
        id: newId('syn_'),
        projectId: ctx.project.id,
        synonymType: input.synonym_type ?? 'equivalent',
        terms: cleanTerms(input.terms),
      },
    }),
  );
}

/** Applies the fields sent (terms replace the list). */
export async function updateSynonymGroup(ctx: Ctx, id: string, input: SynonymGroupUpdate): Promise<SynonymGroup> {
  return writeTx(ctx, {}, async (tx) => {
    await findOwned(ctx, tx.synonymGroup, id, 'Synonym group not found.');
    return tx.synonymGroup.update({
      where: { id },
      data: {
        synonymType: input.synonym_type,
        terms: input.terms && cleanTerms(input.terms),
        isActive: input.is_active,
      },
    });
  });
}

/** Deletes the group; the next search no longer uses it. */
export async function deleteSynonymGroup(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findOwned(ctx, tx.synonymGroup, id, 'Synonym group not found.');
    await tx.synonymGroup.delete({ where: { id } });
  });
}
