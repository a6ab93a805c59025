import type pg from 'pg';
import { poolOf } from '../../db/client.js';
import type { Ctx } from '../../shared/context.js';
import { UNBOUNDED, type IndexBound, type ProjectIndexes } from '../../shared/project-indexes.js';
import { Slices } from '../../shared/slices.js';
import { PackedTexts } from './packed-texts.js';
import { eachBatch, inSnapshot, rows, sortsByCodePoint } from './index-snapshot.js';
import { compareCodePoints } from './suggest-index.text.js';
import { searchVocabularyOf, searchVocabularyReady, type SearchVocabulary } from './search-vocabulary.js';

/**
 * A project's suggestion inputs held in the process, so a suggestion list is ranked without a statement: the
 * title words in the order of search_title_words_prefix_idx (the order the suggest statement reads them in),
 * the collections with their title lexemes, and the suggestable past queries with the blocks; beside them the
 * project's vocabulary with a trigram index for typo candidates (search-vocabulary.ts). Each part is read in one snapshot and kept only while no table it
 * was read from changed (ProjectIndexes); the reads in suggest-index.reads.ts answer as the statements would.
 */

export interface CatalogIndex {
  /** Its estimated size in memory (what ProjectIndexes bounds). */
  bytes: number;
  /** The distinct title and SKU words in byte order, and where each one's rows start in `wordProducts`. */
  words: string[];
  wordStarts: Int32Array;
  /** Per title word row, in the prefix index's order (word, title length, title_norm, row order): its product. */
  wordProducts: Int32Array;
  productIds: PackedTexts;
  /** Per product, its title's position in the distinct titles below (products often share a title). */
  productTitles: Int32Array;
  titles: IndexedTitle[];
  collections: IndexedCollection[];
}

export interface IndexedTitle {
  title: string;
  /** lower(title), as PostgreSQL lowers it (suggestions merge titles equal in lower case). */
  lower: string;
  /** title_norm: lower(unaccent(title)). */
  norm: string;
  /** length(title) in characters. */
  length: number;
  /**
   * When title_norm holds characters outside ASCII: its words as PostgreSQL splits it at `[^[:alnum:]]` (which
   * characters count as alphanumeric there is the locale's). Otherwise absent: ASCII is split the same everywhere.
   */
  normWords?: string[];
}

export interface IndexedCollection {
  id: string;
  title: string;
  titleLower: string;
  /** lower(unaccent(title)). */
  titleNorm: string;
  length: number;
  /** The lexemes of to_tsvector('simple', unaccent(title)). */
  lexemes: string[];
}

export interface PastIndex {
  /** Its estimated size in memory (what ProjectIndexes bounds). */
  bytes: number;
  /** The client count the rows were read with (search_query_stats.client_count at least this). */
  minClients: number;
  /** Past queries with results the last time, in code point (byte) order, with their client and search counts. */
  queries: string[];
  clientCounts: Int32Array;
  searchCounts: Int32Array;
  blocked: Set<string>;
}

export interface SuggestIndex {
  catalog: CatalogIndex;
  past: PastIndex;
  /** The project's vocabulary, kept apart (search-vocabulary.ts): a write's changed terms are applied to it. */
  vocabulary: SearchVocabulary;
}

// What each part is read from: a write to any of them (by any process) makes the part stale. Titles are read from
// search_title_words (which the statement reads them from too), not search_products, whose stock column changes
// with every order. The vocabulary (search_terms) is the one searches read (search-vocabulary.ts).
const CATALOG_TABLES = ['search_title_words', 'collections'];
const PAST_TABLES = ['search_query_stats', 'search_suggestion_blocks'];

/** About what `texts` take in V8's heap with their array slots (a header and up to two bytes per character). */
const sizeOfTexts = (texts: readonly string[]) => texts.reduce((sum, text) => sum + 24 + text.length * 2, 0);

// What the catalog part holds per title word row (its product, the word's share), as the bound counts them before
// a build.
const WORD_ROW_BYTES = 48;

/**
 * Reads the project's catalog part (title words and collections) in slices of the event loop (Slices); null when the database's collation does
 * not sort by code point, or when the part would exceed `bound` by an estimate from its counts (the project's
 * suggestions then run their statements).
 */
async function buildCatalog(
  pool: pg.Pool,
  projectId: string,
  bound: IndexBound = UNBOUNDED,
  slices = new Slices(),
): Promise<CatalogIndex | null> {
  return inSnapshot(pool, async (client) => {
    if (!(await sortsByCodePoint(client))) return null;
    const interned = new Map<string, string>();
    const intern = (text: string) => interned.get(text) ?? (interned.set(text, text), text);
    // How many title word rows the snapshot holds: their products are read into one array of that size, and a
    // part that would not fit the bound is not read at all.
    const [[wordRows]] = (await rows(
      client,
      `SELECT count(*)::int FROM search_title_words WHERE project_id = $1 AND word <> ''`,
      [projectId],
    )) as Array<[number]>;
    const estimate = wordRows * WORD_ROW_BYTES;
    if (estimate > bound.maxBytes) {
      bound.refuse(estimate);
      return null;
    }
    const positions = new Map<string, number>();
    const productIds = PackedTexts.packing();
    const productTitles: number[] = [];
    const titles: IndexedTitle[] = [];
    const titlePositions = new Map<string, number>();
    await eachBatch(
      client,
      `SELECT product_id, title, lower(title), title_norm, title_len,
              CASE WHEN title_norm ~ '[^\\x01-\\x7f]' THEN regexp_split_to_array(title_norm, '[^[:alnum:]]+') END
       FROM search_title_words WHERE project_id = $1 AND word <> ''
       GROUP BY product_id, title, title_norm, title_len`,
      [projectId],
      async (batch) => {
        for (const [id, title, lower, norm, length, normWords] of batch as Array<
          [string, string, string, string, number, string[] | null]
        >) {
          positions.set(id, positions.size);
          productIds.push(id);
          let position = titlePositions.get(title);
          if (position === undefined) {
            position = titles.length;
            titlePositions.set(title, position);
            titles.push({
              title,
              lower: intern(lower),
              norm: intern(norm),
              length,
              ...(normWords ? { normWords: normWords.filter(Boolean).map(intern) } : {}),
            });
          }
          productTitles.push(position);
          if (slices.step()) await slices.pause();
        }
      },
    );
    interned.clear();
    titlePositions.clear();
    // The index's own order, ties in row order as its scans return them: forbid the planner any other plan.
    await client.query('SET LOCAL enable_seqscan = off');
    await client.query('SET LOCAL enable_bitmapscan = off');
    await client.query('SET LOCAL enable_sort = off');
    const words: string[] = [];
    const wordStarts: number[] = [];
    const wordProducts = new Int32Array(wordRows);
    let wordRow = 0;
    await eachBatch(
      client,
      `SELECT word, product_id FROM search_title_words WHERE project_id = $1 AND word <> ''
       ORDER BY word USING ~<~, title_len, title_norm`,
      [projectId],
      async (batch) => {
        for (const [word, id] of batch as Array<[string, string]>) {
          if (words.at(-1) !== word) {
            words.push(word);
            wordStarts.push(wordRow);
          }
          wordProducts[wordRow++] = positions.get(id) ?? -1;
          if (slices.step()) await slices.pause();
        }
      },
    );
    if (wordRow !== wordProducts.length) throw new Error('search_title_words did not hold the rows it counted');
    positions.clear();
    wordStarts.push(wordRow);
    const collections = await rows(
      client,
      `SELECT id, title, lower(title), lower(unaccent(title)), length(title),
              tsvector_to_array(to_tsvector('simple', unaccent(title)))
       FROM collections WHERE project_id = $1`,
      [projectId],
    );
    const collectionRows = collections.map((row) => ({
      id: row[0] as string,
      title: row[1] as string,
      titleLower: row[2] as string,
      titleNorm: row[3] as string,
      length: row[4] as number,
      lexemes: row[5] as string[],
    }));
    const packedIds = productIds.done();
    const bytes =
      (wordProducts.length + wordStarts.length) * 4 +
      packedIds.bytes +
      sizeOfTexts(words) +
      titles.reduce((sum, t) => sum + 64 + sizeOfTexts([t.title, t.lower, t.norm, ...(t.normWords ?? [])]), 0) +
      collectionRows.reduce(
        (sum, c) => sum + 96 + sizeOfTexts([c.id, c.title, c.titleLower, c.titleNorm, ...c.lexemes]),
        0,
      );
    return {
      bytes,
      words,
      wordStarts: Int32Array.from(wordStarts),
      wordProducts,
      productIds: packedIds,
      productTitles: Int32Array.from(productTitles),
      titles,
      collections: collectionRows,
    };
  });
}

/** Reads the project's past queries searched by at least `minClients` clients, with results the last time, and its blocks. */
async function buildPast(pool: pg.Pool, projectId: string, minClients: number): Promise<PastIndex> {
  return inSnapshot(pool, async (client) => {
    const stats = await rows(
      client,
      `SELECT query, client_count, search_count FROM search_query_stats
       WHERE project_id = $1 AND client_count >= $2 AND last_result_count > 0`,
      [projectId, minClients],
    );
    const blocks = await rows(client, 'SELECT query FROM search_suggestion_blocks WHERE project_id = $1', [projectId]);
    stats.sort((a, b) => compareCodePoints(a[0] as string, b[0] as string));
    const queries = stats.map((row) => row[0] as string);
    const blocked = blocks.map((row) => row[0] as string);
    return {
      bytes: sizeOfTexts(queries) + queries.length * 8 + sizeOfTexts(blocked) + blocked.length * 40,
      minClients,
      queries,
      clientCounts: Int32Array.from(stats, (row) => row[1] as number),
      searchCounts: Int32Array.from(stats, (row) => row[2] as number),
      blocked: new Set(blocked),
    };
  });
}

/**
 * The catalog part of the project's suggest index (words, collections, vocabulary) when it is exact now (call
 * after the indexes' caughtUp()); else undefined, and it is being built.
 */
export function suggestCatalogOf(ctx: Ctx): CatalogIndex | undefined {
  const indexes = ctx.caches?.suggestIndexes as ProjectIndexes<CatalogIndex | PastIndex | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  const catalog = indexes.get(ctx.project.id, 'suggest-catalog', CATALOG_TABLES, () =>
    buildCatalog(pool, ctx.project.id, indexes.boundFor(ctx.project.id)),
  ) as CatalogIndex | null | undefined;
  return catalog ?? undefined;
}

/** Builds the catalog part of the project's suggest index now when it is not exact, and returns it (warm-up, tests). */
export async function suggestCatalogReady(ctx: Ctx): Promise<CatalogIndex | undefined> {
  const indexes = ctx.caches?.suggestIndexes as ProjectIndexes<CatalogIndex | PastIndex | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  const catalog = (await indexes.ready(ctx.project.id, 'suggest-catalog', CATALOG_TABLES, () =>
    buildCatalog(pool, ctx.project.id, indexes.boundFor(ctx.project.id)),
  )) as CatalogIndex | null | undefined;
  return catalog ?? undefined;
}

/**
 * The project's suggest index when every part of it is exact now (read from the database this request reads
 * from); otherwise undefined, and the stale or missing parts are being built for the requests to come.
 */
export async function suggestIndexOf(ctx: Ctx, minClients: number): Promise<SuggestIndex | undefined> {
  const indexes = ctx.caches?.suggestIndexes as ProjectIndexes<CatalogIndex | PastIndex | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  await indexes.caughtUp();
  const catalog = suggestCatalogOf(ctx);
  const past = indexes.get(ctx.project.id, `suggest-past|${minClients}`, PAST_TABLES, () =>
    buildPast(pool, ctx.project.id, minClients),
  ) as PastIndex | undefined;
  const vocabulary = await searchVocabularyOf(ctx);
  return catalog && past && vocabulary ? { catalog, past, vocabulary } : undefined;
}

/** Builds the project's suggest index now when it is not exact, and returns it (warm-up, tests). */
export async function suggestIndexReady(ctx: Ctx, minClients: number): Promise<SuggestIndex | undefined> {
  const indexes = ctx.caches?.suggestIndexes as ProjectIndexes<CatalogIndex | PastIndex | null> | undefined;
  const pool = poolOf(ctx.db);
  if (!indexes || !pool) return undefined;
  const catalog = await suggestCatalogReady(ctx);
  const past = (await indexes.ready(ctx.project.id, `suggest-past|${minClients}`, PAST_TABLES, () =>
    buildPast(pool, ctx.project.id, minClients),
  )) as PastIndex | undefined;
  const vocabulary = await searchVocabularyReady(ctx);
  return catalog && past && vocabulary ? { catalog, past, vocabulary } : undefined;
}
