import type { PackedTexts } from './packed-texts.js';

/**
 * A project's searchable products held in the process (search_products and the collection titles), so a
 * product search is matched, ranked and counted without a statement: each product's document (its tsvector,
 * as PostgreSQL stores it) with postings per lexeme, and the fields filters, facets and hits read. Read in one
 * snapshot and kept only while neither table changed (ProjectIndexes); product-index.search.ts answers from it
 * as search.sql.ts's statements would.
 */
export interface ProductIndex {
  /** Its estimated size in memory (what ProjectIndexes bounds). */
  bytes: number;
  /** Product ids in code point order: a product's position is its rank among ids (the statements' last tie-break). */
  ids: PackedTexts;
  /** Every lexeme of the documents in byte order (tsvector order), so a prefix is a range of positions. */
  lexemes: string[];
  /** Per product, where its entries start in `entryLexemes` (n + 1 values). */
  docEntries: Int32Array;
  /** Per entry, its lexeme (position in `lexemes`), ascending within a product as in its tsvector (16 bits while the lexicon fits them). */
  entryLexemes: Uint16Array | Int32Array;
  /** Per lexeme, where its postings start in `postingDocs` (lexemes + 1 values). */
  lexemePostings: Int32Array;
  /** Per posting (a product's entry for a lexeme), the product (ascending within a lexeme). */
  postingDocs: Int32Array;
  /** Per posting, where its positions start in `positions` (postings + 1 values). */
  postingPositions: Int32Array;
  /**
   * WordEntryPos values (weight in the top 2 bits, position in the low 14), as PostgreSQL stores them, in posting
   * order: a lexeme's products' positions lie together, read in order when its postings are.
   */
  positions: Uint16Array;
  /** Per posting, the weights its positions have (bit 1 << weight; every bit for an entry without positions, which any weight matches). */
  postingWeights: Uint8Array;
  /** Per posting, what its entry adds to calc_rank_or's sum with RANK_WEIGHTS (orEntryAddend), as a position in `addendValues`. */
  postingAddends: Uint16Array | Uint32Array;
  addendValues: Float64Array;
  /** Per product, its product type (position in `types`) or -1. */
  docTypes: Int32Array;
  types: string[];
  /** Per product, where its tags start in `tagValues` (n + 1 values); tags are positions in `tags`. */
  docTags: Int32Array;
  tagValues: Int32Array;
  tags: string[];
  /** Per product, where its collection ids start in `collectionValues`; positions in `collectionIds`. */
  docCollections: Int32Array;
  collectionValues: Int32Array;
  collectionIds: string[];
  /** Titles of the project's collections by id (absent: no such collection). */
  collectionTitles: Map<string, string>;
  inStock: Uint8Array;
  prices: Int32Array;
  /** Sale prices, NaN where none. */
  salePrices: Float64Array;
  titles: PackedTexts;
  handles: PackedTexts;
  images: Array<string | null>;
  /**
   * Products by their title as the whole-query bonus compares it (title_norm with every run of non-alphanumerics
   * one space, trimmed), so a search finds the products its words title exactly without a pass over them: each
   * such title's number, and its products in `titleDocs` from `titleStarts[number]` (ascending; see productsTitled).
   */
  titleNumbers: Map<string, number>;
  titleStarts: Int32Array;
  titleDocs: Int32Array;
  /**
   * Per product, what an answer counts of it in four words (16 bytes, one cache line), so a pass over an answer
   * reads one place per product: FACET_RECORD describes them; a product whose figures do not fit is marked and
   * counted from the arrays above.
   */
  facetRecords: Int32Array;
}

/** The words of ProductIndex.facetRecords: per product at 4p, its price; at 4p + 1 its type + 1 (0: none, low 16 bits), in-stock bit, inline value count (3 bits) and overflow bit; at 4p + 2 and 4p + 3 up to four 16-bit values (tag t as t, collection c as tags.length + c). */
export const FACET_RECORD = { words: 4, inStock: 1 << 16, countShift: 17, overflow: 1 << 20 } as const;

/** ts_rank's weights of D, C, B and A, as the search statements pass them ('{0.1,0.3,0.5,1.0}'). */
export const RANK_WEIGHTS = [0.1, 0.3, 0.5, 1.0];
