/**
 * The project's vocabulary (search_terms with doc_count > 0) held in the process for a search's typo candidates, as
 * search_term_candidates finds them: read once, then each write's changed terms (search_terms notifies them, see
 * migration 20261129073000) are read again into an overlay, so a project that writes steadily keeps searching
 * from the process. Suggestions read the same vocabulary (SuggestIndex.vocabulary).
 */
import type pg from 'pg';
import { poolOf } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import type { IndexBound, IndexPatch, ProjectIndexes } from '../../shared/project-indexes.js';
import { Slices, sortInSlices } from '../../shared/slices.js';
import { inSnapshot, rows } from './index-snapshot.js';
import { compareCodePoints, trigramsOf } from './suggest-index.text.js';

/** A vocabulary as typo candidates are found in (suggest-index.reads.ts). */
export interface Vocabulary {
  /** Vocabulary terms with doc_count > 0, in code point (byte) order, their doc counts and trigram counts. */
  terms: string[];
  termDocCounts: Int32Array;
  termTrigramCounts: Int32Array;
  termLengths: Int32Array;
  /** Vocabulary terms holding each trigram (positions in `terms`). */
  trigramTerms: Map<string, Int32Array>;
}

/**
 * A vocabulary and the terms changed since it was read: `changed` (each changed term, whether or not it is still a
 * term) is left out of `base`, and `overlay` holds those still terms (doc_count > 0) as they are now.
 */
export interface VocabularySegments {
  base: Vocabulary;
  changed: ReadonlySet<string>;
  overlay: Vocabulary | null;
}

export type SearchVocabulary = VocabularySegments & { bytes: number };

const VOCABULARY_TABLES = ['search_terms'];
/** Bytes a term costs (its text, counts and trigram postings), as the bound counts them. */
const TERM_BYTES = 200;
/** Changed terms an overlay holds before a build replaces it in the background; past twice that, a rebuild. */
const COMPACT_AT = 2_000;
const WAIT_MS = 50;

const TERMS = 'SELECT term, doc_count FROM search_terms WHERE project_id = $1 AND doc_count > 0';

/** The vocabulary in code point order with pg_trgm's trigrams of each term, indexed by trigram (in slices). */
async function vocabularyOf(termRows: unknown[][], slices: Slices): Promise<Vocabulary> {
  const terms = await sortInSlices(
    termRows.map((row) => ({ term: row[0] as string, docCount: row[1] as number })),
    (a, b) => compareCodePoints(a.term, b.term),
    slices,
  );
  const trigramLists = new Map<string, number[]>();
  const termTrigramCounts = new Int32Array(terms.length);
  for (const [i, { term }] of terms.entries()) {
    const grams = trigramsOf(term);
    termTrigramCounts[i] = grams.length;
    for (const gram of grams) {
      const list = trigramLists.get(gram);
      if (list) list.push(i);
      else trigramLists.set(gram, [i]);
    }
    if (slices.advance(grams.length)) await slices.pause();
  }
  return {
    terms: terms.map((t) => t.term),
    termDocCounts: Int32Array.from(terms, (t) => t.docCount),
    termTrigramCounts,
    termLengths: Int32Array.from(terms, (t) => [...t.term].length),
    trigramTerms: new Map([...trigramLists].map(([gram, list]) => [gram, Int32Array.from(list)])),
  };
}

async function buildVocabulary(pool: pg.Pool, projectId: string, bound: IndexBound): Promise<SearchVocabulary | null> {
  return inSnapshot(pool, async (client) => {
    const [[count]] = (await rows(client, `SELECT count(*)::int FROM (${TERMS}) t`, [projectId])) as number[][];
    if (count * TERM_BYTES > bound.maxBytes) {
      bound.refuse(count * TERM_BYTES);
      return null;
    }
    const base = await vocabularyOf(await rows(client, TERMS, [projectId]), new Slices());
    return { base, changed: new Set(), overlay: null, bytes: count * TERM_BYTES };
  });
}

function vocabularyPatch(pool: pg.Pool, projectId: string): IndexPatch<SearchVocabulary | null> {
  return {
    table: 'search_terms',
    async apply(vocabulary, terms) {
      if (vocabulary === null) return null;
      const changed = new Set([...vocabulary.changed, ...terms]);
      if (changed.size > COMPACT_AT * 2) return null;
      const result = await pool.query({
        text: `${TERMS} AND term = ANY($2::text[])`,
        values: [projectId, [...changed]],
        rowMode: 'array',
      });
      const overlay = result.rows.length > 0 ? await vocabularyOf(result.rows, new Slices()) : null;
      return { ...vocabulary, changed, overlay, bytes: vocabulary.bytes + changed.size * TERM_BYTES };
    },
    compact: (vocabulary) => vocabulary !== null && vocabulary.changed.size >= COMPACT_AT,
  };
}

function vocabularyIndex(ctx: Ctx) {
  const indexes = ctx.caches?.suggestIndexes as ProjectIndexes<SearchVocabulary | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  const projectId = ctx.project.id;
  const bound = indexes.boundFor(projectId);
  return {
    indexes,
    projectId,
    build: () => buildVocabulary(pool, projectId, bound),
    patch: vocabularyPatch(pool, projectId),
  };
}

/** The project's vocabulary when it is exact now (waiting up to 50 ms for a write's changed terms); else undefined, and it is being built. */
export async function searchVocabularyOf(ctx: Ctx): Promise<SearchVocabulary | undefined> {
  const of = vocabularyIndex(ctx);
  if (!of) return undefined;
  const { indexes, projectId, build, patch } = of;
  return (await indexes.waitingGet(projectId, 'vocabulary', VOCABULARY_TABLES, build, patch, WAIT_MS)) ?? undefined;
}

/** Builds the project's vocabulary now when it is not exact, and returns it (warm-up, tests). */
export async function searchVocabularyReady(ctx: Ctx): Promise<SearchVocabulary | undefined> {
  const of = vocabularyIndex(ctx);
  if (!of) return undefined;
  return (await of.indexes.ready(of.projectId, 'vocabulary', VOCABULARY_TABLES, of.build, of.patch)) ?? undefined;
}
