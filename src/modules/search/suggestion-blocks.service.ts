import type { components, operations } from '../../generated/openapi.js';
import type { SearchSuggestionBlock } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { conflictOn, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { listPage } from '../../shared/list-page.js';
import { findOwned } from '../../shared/owned.js';
import { writeTx } from '../../shared/write.js';
import { normalizeQuery } from './query-parser.js';

type BlockCreate = components['schemas']['SuggestionBlockCreate'];
type BlockListQuery = NonNullable<operations['listSuggestionBlocks']['parameters']['query']>;

/** A block as the API shows it. */
export function toSuggestionBlockResource(block: SearchSuggestionBlock): components['schemas']['SuggestionBlock'] {
  return { id: block.id, query: block.query, created_at: block.createdAt.toISOString() };
}

/**
 * Blocks a query from suggestions, stored normalized as the search log stores queries; the next suggestion
 * no longer offers it (or any past query that corrects to it). 409 when it is blocked already.
 */
export async function blockSuggestion(ctx: Ctx, input: BlockCreate): Promise<SearchSuggestionBlock> {
  const query = normalizeQuery(input.query);
  if (!/[\p{L}\p{N}]/u.test(query)) throw invalidField('query', 'query must hold a letter or a digit.');
  try {
    return await writeTx(ctx, {}, (tx) =>
      tx.searchSuggestionBlock.create({ data: { id: newId('sblk_'), projectId: ctx.project.id, query } }),
    );
  } catch (error) {
    throw conflictOn(error, { query: { field: 'query', message: `"${query}" is blocked already.` } });
  }
}

/** A page of the project's blocked queries, newest first by default. */
export async function listSuggestionBlocks(ctx: Ctx, query: BlockListQuery) {
  return listPage(ctx, {
    model: ctx.db.searchSuggestionBlock,
    where: { projectId: ctx.project.id },
    query,
    sorts: { created_at: [{ field: 'createdAt', kind: 'date' }], query: [{ field: 'query', kind: 'string' }] },
    defaultSort: 'created_at',
    map: toSuggestionBlockResource,
  });
}

/** The block with this id in the caller's project; 404 otherwise. */
export async function getSuggestionBlock(ctx: Ctx, id: string): Promise<SearchSuggestionBlock> {
  return findOwned(ctx, ctx.db.searchSuggestionBlock, id, 'Suggestion block not found.');
}

/** Unblocks: the query may be suggested again when it qualifies. */
export async function deleteSuggestionBlock(ctx: Ctx, id: string): Promise<void> {
  await writeTx(ctx, {}, async (tx) => {
    await findOwned(ctx, tx.searchSuggestionBlock, id, 'Suggestion block not found.');
    await tx.searchSuggestionBlock.delete({ where: { id } });
  });
}
