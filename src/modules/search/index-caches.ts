/**
 * SEARCH_INDEX_CACHES=off, for benchmarks only (bench/README.md, "Search at scale"; config.ts reads it once at
 * start, production leaves it on): each search first forgets what the project's in-process index keeps across
 * answers, so that every search is measured as the first one after a build. What a search keeps while it runs it
 * still keeps until the next search starts (a concurrent search may lose it earlier: it is then computed again).
 */
import type { Ctx } from '../../shared/context.js';
import { forgetCompiled } from './index-engine/compiled-tsqueries.js';
import { forgetKeptSets } from './index-engine/kept-sets.js';
import { forgetRanked } from './index-engine/ranking.js';
import type { ProductSegments } from './product-segments.js';
import type { VocabularySegments } from './search-vocabulary.js';
import { forgetCandidates } from './suggest-index.reads.js';

/** Forgets the project's compiled tsqueries and, for each segment of its product index, the kept sets, ranks and impact orders. */
export function forgetProductIndexCaches(ctx: Ctx, segments: ProductSegments): void {
  forgetCompiled(ctx.project.id);
  for (const index of [segments.base, segments.delta]) {
    if (!index) continue;
    forgetKeptSets(index);
    forgetRanked(index);
  }
}

/** Forgets the typo candidates kept for the words of the project's search vocabulary. */
export const forgetVocabularyCaches = (vocabulary: VocabularySegments): void => forgetCandidates(vocabulary);
