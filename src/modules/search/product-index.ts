import type pg from 'pg';
import { UNBOUNDED, type IndexBound } from '../../shared/project-indexes.js';
import { Slices, sortInSlices } from '../../shared/slices.js';
import { orEntryAddend } from './engine/pg-tsrank.js';
import { portDifferencesOn } from './engine/self-check.js';
import { eachBatch, inSnapshot, rows, sortsByCodePoint } from './index-snapshot.js';
import { type GrowableList, LexemeList, TextTable, intList, uint16List } from './index-lists.js';
import { PackedTexts } from './packed-texts.js';
import { compareCodePoints, lowerBound } from './suggest-index.text.js';

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

// What the index is read from: a write to either (by any process) makes it stale.
export const PRODUCT_INDEX_TABLES = ['search_products', 'collections'];

const decoder = new TextDecoder();

/** Appends the entries of a tsvectorsend value (count, then per lexeme: C string, position count, positions). */
function readDocument(
  bytes: Uint8Array,
  lexemes: TextTable,
  entryLexemes: LexemeList,
  entryCounts: GrowableList<Uint16Array>,
  positions: GrowableList<Uint16Array>,
) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getInt32(0);
  let at = 4;
  for (let i = 0; i < count; i++) {
    const end = bytes.indexOf(0, at);
    entryLexemes.push(lexemes.positionOf(decoder.decode(bytes.subarray(at, end))));
    at = end + 1;
    const npos = view.getUint16(at);
    at += 2;
    entryCounts.push(npos);
    for (let p = 0; p < npos; p++) {
      positions.push(view.getUint16(at));
      at += 2;
    }
  }
}

/** Each title's products, ascending, from each product's title number (a counting sort; linear, so in one slice). */
async function productsByTitle(
  docTitles: Int32Array,
  titleCount: number,
  slices: Slices,
): Promise<{ titleStarts: Int32Array; titleDocs: Int32Array }> {
  const titleStarts = new Int32Array(titleCount + 1);
  for (const title of docTitles) titleStarts[title + 1]++;
  for (let t = 1; t <= titleCount; t++) titleStarts[t] += titleStarts[t - 1];
  const next = titleStarts.slice(0, titleCount);
  const titleDocs = new Int32Array(docTitles.length);
  for (let doc = 0; doc < docTitles.length; doc++) titleDocs[next[docTitles[doc]]++] = doc;
  if (slices.advance(docTitles.length)) await slices.pause();
  return { titleStarts, titleDocs };
}

/** The products titled `words` (as titleNumbers compares titles), ascending. */
export function productsTitled(index: ProductIndex, words: string): Int32Array {
  const title = index.titleNumbers.get(words);
  return title === undefined
    ? new Int32Array(0)
    : index.titleDocs.subarray(index.titleStarts[title], index.titleStarts[title + 1]);
}

/** Bytes an index holds per document entry (a lexeme of a product) and per product, as its estimate counts them. */
const ENTRY_BYTES = 24;
const PRODUCT_BYTES = 200;
/** Bytes a distinct lexeme costs while the index is built (its string, its slot in the lexicon and its map). */
const LEXEME_BYTES = 96;
// Entries fetched at a time: a batch of 1,000 products of a few dozen entries each, fewer products where they are
// large (a 65,535-character description is some 10,000 entries), so a batch's rows stay a few MB.
const FETCH_ENTRIES = 100_000;

/**
 * Reads the project's products in one snapshot, in slices of the event loop (Slices), within `maxBytes`: null
 * when the database's collation does not sort by code point, or when the index would exceed `bound` (by an
 * estimate from the counts read first, or as the build finds its lexicon growing past it): the project's searches
 * then run their statements.
 */
export async function buildProductIndex(
  pool: pg.Pool,
  projectId: string,
  bound: IndexBound = UNBOUNDED,
  slices = new Slices(),
  onlyIds?: string[],
): Promise<ProductIndex | null> {
  // `onlyIds`: the index of those products alone (the changed products of ProductSegments).
  const only = onlyIds ? 'AND product_id = ANY($2::text[])' : '';
  const params = onlyIds ? [projectId, onlyIds] : [projectId];
  const differences = await portDifferencesOn(pool, RANK_WEIGHTS);
  if (differences.length > 0) {
    bound.unusable(`the port of @@ and ts_rank answers otherwise than this server (${differences[0]})`);
    return null;
  }
  return inSnapshot(pool, async (client) => {
    if (!(await sortsByCodePoint(client))) return null;
    // How many products and entries the snapshot holds, so that each list is allocated once (positions: about
    // three an entry at first), and whether the index can fit its bound at all.
    const [[count, entries]] = (await rows(
      client,
      `SELECT count(*)::int, coalesce(sum(length(document)), 0)::int FROM search_products WHERE project_id = $1 ${only}`,
      params,
    )) as Array<[number, number]>;
    const estimate = (lexemeCount: number, entryCount: number, productCount: number) =>
      lexemeCount * LEXEME_BYTES + entryCount * ENTRY_BYTES + productCount * PRODUCT_BYTES;
    if (estimate(0, entries, count) > bound.maxBytes) {
      bound.refuse(estimate(0, entries, count));
      return null;
    }
    let oversized = 0;
    const ids = PackedTexts.packing();
    let lastId: string | undefined;
    const lexemes = new TextTable();
    const types = new TextTable();
    const tags = new TextTable();
    const collections = new TextTable();
    const docEntries = intList(count + 1);
    const entryLexemes = new LexemeList(entries);
    const entryCounts = uint16List(entries);
    const positions = uint16List(entries * 3);
    const docTypes = intList(count);
    const docTags = intList(count + 1);
    const tagValues = intList();
    const docCollections = intList(count + 1);
    const collectionValues = intList();
    const inStock: number[] = [];
    const prices = intList(count);
    const salePrices: number[] = [];
    const titles = PackedTexts.packing();
    const handles = PackedTexts.packing();
    const images: Array<string | null> = [];
    const titleNumbers = new Map<string, number>();
    const docTitles = intList(count);
    await eachBatch(
      client,
      `SELECT product_id, product_type, tags, collection_ids, in_stock, price, sale_price, title, handle, image,
              btrim(regexp_replace(title_norm, '[^[:alnum:]]+', ' ', 'g')), tsvectorsend(document)
       FROM search_products WHERE project_id = $1 ${only} ORDER BY product_id`,
      params,
      async (batch) => {
        for (const row of batch as Array<
          [
            string,
            string | null,
            string[] | null,
            string[] | null,
            boolean,
            number,
            number | null,
            string,
            string,
            string | null,
            string,
            Uint8Array,
          ]
        >) {
          const [id, type, tagList, collectionList, stocked, price, salePrice, title, handle, image, words, document] =
            row;
          // The statement's last tie-break is the id in the database's (code point) order; ORDER BY gave it.
          if (lastId !== undefined && compareCodePoints(lastId, id) >= 0)
            throw new Error('search_products ids did not come in code point order');
          lastId = id;
          ids.push(id);
          docEntries.push(entryLexemes.length);
          readDocument(document, lexemes, entryLexemes, entryCounts, positions);
          docTypes.push(type === null ? -1 : types.positionOf(type));
          docTags.push(tagValues.length);
          for (const tag of tagList ?? []) tagValues.push(tags.positionOf(tag));
          docCollections.push(collectionValues.length);
          for (const collection of collectionList ?? []) collectionValues.push(collections.positionOf(collection));
          inStock.push(stocked ? 1 : 0);
          prices.push(price);
          salePrices.push(salePrice ?? NaN);
          titles.push(title);
          handles.push(handle);
          images.push(image);
          let titleNumber = titleNumbers.get(words);
          if (titleNumber === undefined) titleNumbers.set(words, (titleNumber = titleNumbers.size));
          docTitles.push(titleNumber);
          const size = estimate(lexemes.texts.length, entryLexemes.length, docTypes.length);
          if (size > bound.maxBytes) {
            oversized = size;
            return false;
          }
          if (slices.advance(document.length >> 3)) await slices.pause();
        }
        return true;
      },
      FETCH_ENTRIES / Math.max(1, entries / Math.max(1, count)),
    );
    if (oversized > 0) {
      bound.refuse(oversized);
      return null;
    }
    docEntries.push(entryLexemes.length);
    docTags.push(tagValues.length);
    docCollections.push(collectionValues.length);
    const titleRows = await rows(client, 'SELECT id, title FROM collections WHERE project_id = $1', [projectId]);
    return assemble(slices, {
      ids: ids.done(),
      lexemes: lexemes.texts,
      docEntries: docEntries.take(),
      entryLexemes: entryLexemes.take(),
      entryCounts: entryCounts.take(),
      positions: positions.view(),
      docTypes: docTypes.take(),
      types: types.texts,
      docTags: docTags.take(),
      tagValues: tagValues.take(),
      tags: tags.texts,
      docCollections: docCollections.take(),
      collectionValues: collectionValues.take(),
      collectionIds: collections.texts,
      collectionTitles: new Map(titleRows.map((row) => [row[0] as string, row[1] as string])),
      inStock: Uint8Array.from(inStock),
      prices: prices.take(),
      salePrices: Float64Array.from(salePrices),
      titles: titles.done(),
      handles: handles.done(),
      images,
      titleNumbers,
      ...(await productsByTitle(docTitles.take(), titleNumbers.size, slices)),
    });
  });
}

type IndexParts = Omit<
  ProductIndex,
  | 'bytes'
  | 'lexemePostings'
  | 'postingDocs'
  | 'postingPositions'
  | 'postingWeights'
  | 'postingAddends'
  | 'addendValues'
  | 'facetRecords'
> & {
  /**
   * Per entry, how many positions it has (at most 256 in a tsvector): its positions follow the entries before it
   * in `positions`, which are in entry order while the index is built.
   */
  entryCounts: Uint16Array;
};

/** The per-product facet records (see ProductIndex.facetRecords and FACET_RECORD). */
async function facetRecordsOf(parts: IndexParts, slices: Slices): Promise<Int32Array> {
  const count = parts.ids.length;
  const records = new Int32Array(count * FACET_RECORD.words);
  const tagCount = parts.tags.length;
  for (let p = 0; p < count; p++) {
    const at = p * FACET_RECORD.words;
    records[at] = parts.prices[p];
    const values: number[] = [];
    for (let i = parts.docTags[p]; i < parts.docTags[p + 1]; i++) values.push(parts.tagValues[i]);
    for (let i = parts.docCollections[p]; i < parts.docCollections[p + 1]; i++)
      values.push(tagCount + parts.collectionValues[i]);
    const type = parts.docTypes[p] + 1;
    const fits = values.length <= 4 && type < 0x10000 && values.every((value) => value < 0x10000);
    records[at + 1] =
      (fits ? type | (values.length << FACET_RECORD.countShift) : FACET_RECORD.overflow) |
      (parts.inStock[p] === 1 ? FACET_RECORD.inStock : 0);
    if (fits) {
      records[at + 2] = (values[0] ?? 0) | ((values[1] ?? 0) << 16);
      records[at + 3] = (values[2] ?? 0) | ((values[3] ?? 0) << 16);
    }
    if (slices.step()) await slices.pause();
  }
  return records;
}

/** Sorts the lexicon into byte order (renumbering every entry) and builds the postings, in slices. */
async function assemble(slices: Slices, parts: IndexParts): Promise<ProductIndex> {
  const order = await sortInSlices(
    parts.lexemes.map((_, i) => i),
    (a, b) => compareCodePoints(parts.lexemes[a], parts.lexemes[b]),
    slices,
  );
  const renumber = new Int32Array(order.length);
  order.forEach((old, position) => (renumber[old] = position));
  const lexemes = order.map((old) => parts.lexemes[old]);
  const entryLexemes = parts.entryLexemes;
  for (let i = 0; i < entryLexemes.length; i++) {
    entryLexemes[i] = renumber[entryLexemes[i]];
    if (slices.step()) await slices.pause();
  }
  const counts = new Int32Array(lexemes.length + 1);
  for (const lexeme of entryLexemes) counts[lexeme + 1]++;
  for (let i = 1; i < counts.length; i++) counts[i] += counts[i - 1];
  const lexemePostings = counts.slice();
  const postingDocs = new Int32Array(entryLexemes.length);
  const postingWeights = new Uint8Array(entryLexemes.length);
  const addends = new Map<number, number>();
  let postingAddends: Uint16Array | Uint32Array = new Uint16Array(entryLexemes.length);
  const postingPositions = new Int32Array(entryLexemes.length + 1);
  // An entry's posting: a lexeme's postings are its entries in product order (entries are stored product by
  // product), so walking the entries in order with a cursor per lexeme places each; done twice below.
  const postingsInEntryOrder = () => {
    const next = counts.slice(0, lexemes.length);
    return (entry: number) => next[entryLexemes[entry]]++;
  };
  let postingOf = postingsInEntryOrder();
  let from = 0;
  for (let doc = 0; doc < parts.ids.length; doc++) {
    for (let entry = parts.docEntries[doc]; entry < parts.docEntries[doc + 1]; entry++) {
      const at = postingOf(entry);
      postingDocs[at] = doc;
      postingPositions[at + 1] = parts.entryCounts[entry];
      const positions = parts.positions.subarray(from, (from += parts.entryCounts[entry]));
      let weights = positions.length === 0 ? 0b1111 : 0;
      for (let i = 0; i < positions.length; i++) weights |= 1 << (positions[i] >> 14);
      postingWeights[at] = weights;
      const addend = orEntryAddend(RANK_WEIGHTS, positions);
      let slot = addends.get(addend);
      if (slot === undefined) {
        addends.set(addend, (slot = addends.size));
        if (slot > 0xffff && postingAddends instanceof Uint16Array) postingAddends = Uint32Array.from(postingAddends);
      }
      postingAddends[at] = slot;
      if (slices.step()) await slices.pause();
    }
  }
  // The positions in posting order.
  for (let p = 1; p < postingPositions.length; p++) postingPositions[p] += postingPositions[p - 1];
  const positions = new Uint16Array(parts.positions.length);
  postingOf = postingsInEntryOrder();
  from = 0;
  for (let entry = 0; entry < entryLexemes.length; entry++) {
    const to = postingPositions[postingOf(entry)];
    for (let i = 0; i < parts.entryCounts[entry]; i++) positions[to + i] = parts.positions[from + i];
    from += parts.entryCounts[entry];
    if (slices.step()) await slices.pause();
  }
  const texts = (list: readonly (string | null)[]) =>
    list.reduce((sum, t) => sum + (t === null ? 8 : 24 + t.length * 2), 0);
  const bytes =
    entryLexemes.byteLength +
    parts.positions.length * 2 +
    postingDocs.length * 11 +
    (parts.ids.length * 6 + parts.tagValues.length + parts.collectionValues.length) * 4 +
    parts.ids.length * (4 * 4 + 1 + 4 + 8 + 8) +
    (parts.tagValues.length + parts.collectionValues.length) * 4 +
    texts(lexemes) +
    texts(parts.images) +
    texts([...parts.titleNumbers.keys()]) +
    parts.titleNumbers.size * 32 +
    parts.ids.length * 4 +
    texts(parts.types) +
    texts(parts.tags) +
    texts(parts.collectionIds);
  const { entryCounts: _built, ...kept } = parts;
  return {
    ...kept,
    facetRecords: await facetRecordsOf(parts, slices),
    bytes: bytes + parts.ids.bytes + parts.titles.bytes + parts.handles.bytes,
    lexemes,
    entryLexemes,
    lexemePostings,
    postingDocs,
    postingPositions,
    positions,
    postingWeights,
    postingAddends,
    addendValues: Float64Array.from(addends.keys()),
  };
}

/** The position of product `id` in the index (a binary search of its ids, which are in code point order), or undefined. */
export function positionOf(index: ProductIndex, id: string): number | undefined {
  const low = lowerBound(index.ids, id);
  return low < index.ids.length && index.ids.at(low) === id ? low : undefined;
}
