import type pg from 'pg';
import { UNBOUNDED, type IndexBound } from '../../shared/project-indexes.js';
import { Slices, sortInSlices } from '../../shared/slices.js';
import { orEntryAddend } from './engine/pg-tsrank.js';
import { portDifferencesOn } from './engine/self-check.js';
import { eachBatch, inSnapshot, rows, sortsByCodePoint } from './index-snapshot.js';
import { type GrowableList, type IntList, LexemeList, TextTable, intList, uint16List } from './index-lists.js';
import { PackedTexts } from './packed-texts.js';
import { FACET_RECORD, RANK_WEIGHTS, type ProductIndex } from './product-index.shape.js';
import { compareCodePoints, lowerBound } from './suggest-index.text.js';

export { FACET_RECORD, RANK_WEIGHTS, type ProductIndex } from './product-index.shape.js';

// What the index is read from: a write to either (by any process) makes it stale.
export const PRODUCT_INDEX_TABLES = ['search_products', 'collections'];

const decoder = new TextDecoder();

/**
 * Appends the entries of a tsvectorsend value (count, then per lexeme: C string, position count, positions), one
 * step of `slices` per entry: a 65,535-character description is some 10,000 entries, too many for one slice.
 */
async function readDocument(
  bytes: Uint8Array,
  lexemes: TextTable,
  entryLexemes: LexemeList,
  entryCounts: GrowableList<Uint16Array>,
  positions: GrowableList<Uint16Array>,
  slices: Slices,
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
    if (slices.step()) await slices.pause();
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

// A row of search_products as the builds read it (ROW_COLUMNS, in order).
type ProductRow = [
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
];
const ROW_COLUMNS = `product_id, product_type, tags, collection_ids, in_stock, price, sale_price, title, handle, image,
  btrim(regexp_replace(title_norm, '[^[:alnum:]]+', ' ', 'g')), tsvectorsend(document)`;

const estimate = (lexemeCount: number, entryCount: number, productCount: number) =>
  lexemeCount * LEXEME_BYTES + entryCount * ENTRY_BYTES + productCount * PRODUCT_BYTES;

/** The lists an index is built in, taking rows in product id order (`add`), then assembled (`finish`). */
class ProductIndexBuilder {
  oversized = 0;
  private lastId: string | undefined;
  private readonly ids = PackedTexts.packing();
  private readonly lexemes = new TextTable();
  private readonly types = new TextTable();
  private readonly tags = new TextTable();
  private readonly collections = new TextTable();
  private readonly docEntries: IntList;
  private readonly entryLexemes: LexemeList;
  private readonly entryCounts: GrowableList<Uint16Array>;
  private readonly positions: GrowableList<Uint16Array>;
  private readonly docTypes: IntList;
  private readonly docTags: IntList;
  private readonly tagValues = intList();
  private readonly docCollections: IntList;
  private readonly collectionValues = intList();
  private readonly inStock: number[] = [];
  private readonly prices: IntList;
  private readonly salePrices: number[] = [];
  private readonly titles = PackedTexts.packing();
  private readonly handles = PackedTexts.packing();
  private readonly images: Array<string | null> = [];
  private readonly titleNumbers = new Map<string, number>();
  private readonly docTitles: IntList;

  /** Sized for `count` products of `entries` entries in all (positions: about three an entry at first). */
  constructor(
    count: number,
    entries: number,
    private readonly bound: IndexBound,
  ) {
    this.docEntries = intList(count + 1);
    this.entryLexemes = new LexemeList(entries);
    this.entryCounts = uint16List(entries);
    this.positions = uint16List(entries * 3);
    this.docTypes = intList(count);
    this.docTags = intList(count + 1);
    this.docCollections = intList(count + 1);
    this.prices = intList(count);
    this.docTitles = intList(count);
  }

  /**
   * Takes the next product (ids ascending), in `slices`; false when the index would exceed its bound (`oversized`
   * set).
   */
  async add(row: ProductRow, slices: Slices): Promise<boolean> {
    const [id, type, tagList, collectionList, stocked, price, salePrice, title, handle, image, words, document] = row;
    // The statement's last tie-break is the id in the database's (code point) order; ORDER BY gave it.
    if (this.lastId !== undefined && compareCodePoints(this.lastId, id) >= 0)
      throw new Error('search_products ids did not come in code point order');
    this.lastId = id;
    this.ids.push(id);
    this.docEntries.push(this.entryLexemes.length);
    await readDocument(document, this.lexemes, this.entryLexemes, this.entryCounts, this.positions, slices);
    this.docTypes.push(type === null ? -1 : this.types.positionOf(type));
    this.docTags.push(this.tagValues.length);
    for (const tag of tagList ?? []) this.tagValues.push(this.tags.positionOf(tag));
    this.docCollections.push(this.collectionValues.length);
    for (const collection of collectionList ?? []) this.collectionValues.push(this.collections.positionOf(collection));
    this.inStock.push(stocked ? 1 : 0);
    this.prices.push(price);
    this.salePrices.push(salePrice ?? NaN);
    this.titles.push(title);
    this.handles.push(handle);
    this.images.push(image);
    let titleNumber = this.titleNumbers.get(words);
    if (titleNumber === undefined) this.titleNumbers.set(words, (titleNumber = this.titleNumbers.size));
    this.docTitles.push(titleNumber);
    const size = estimate(this.lexemes.texts.length, this.entryLexemes.length, this.docTypes.length);
    if (size > this.bound.maxBytes) this.oversized = size;
    return this.oversized === 0;
  }

  /** The index of the products added, with the project's collection titles; null when it exceeded its bound. */
  async finish(slices: Slices, collectionTitles: Map<string, string>): Promise<ProductIndex | null> {
    if (this.oversized > 0) {
      this.bound.refuse(this.oversized);
      return null;
    }
    this.docEntries.push(this.entryLexemes.length);
    this.docTags.push(this.tagValues.length);
    this.docCollections.push(this.collectionValues.length);
    return assemble(slices, {
      ids: this.ids.done(),
      lexemes: this.lexemes.texts,
      docEntries: this.docEntries.take(),
      entryLexemes: this.entryLexemes.take(),
      entryCounts: this.entryCounts.take(),
      positions: this.positions.view(),
      docTypes: this.docTypes.take(),
      types: this.types.texts,
      docTags: this.docTags.take(),
      tagValues: this.tagValues.take(),
      tags: this.tags.texts,
      docCollections: this.docCollections.take(),
      collectionValues: this.collectionValues.take(),
      collectionIds: this.collections.texts,
      collectionTitles,
      inStock: Uint8Array.from(this.inStock),
      prices: this.prices.take(),
      salePrices: Float64Array.from(this.salePrices),
      titles: this.titles.done(),
      handles: this.handles.done(),
      images: this.images,
      titleNumbers: this.titleNumbers,
      ...(await productsByTitle(this.docTitles.take(), this.titleNumbers.size, slices)),
    });
  }
}

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
): Promise<ProductIndex | null> {
  const differences = await portDifferencesOn(pool, RANK_WEIGHTS);
  if (differences.length > 0) {
    bound.unusable(`the port of @@ and ts_rank answers otherwise than this server (${differences[0]})`);
    return null;
  }
  return inSnapshot(pool, async (client) => {
    if (!(await sortsByCodePoint(client))) return null;
    // How many products and entries the snapshot holds, so that each list is allocated once, and whether the
    // index can fit its bound at all.
    const [[count, entries]] = (await rows(
      client,
      'SELECT count(*)::int, coalesce(sum(length(document)), 0)::int FROM search_products WHERE project_id = $1',
      [projectId],
    )) as Array<[number, number]>;
    if (estimate(0, entries, count) > bound.maxBytes) {
      bound.refuse(estimate(0, entries, count));
      return null;
    }
    const builder = new ProductIndexBuilder(count, entries, bound);
    await eachBatch(
      client,
      `SELECT ${ROW_COLUMNS} FROM search_products WHERE project_id = $1 ORDER BY product_id`,
      [projectId],
      async (batch) => {
        for (const row of batch as ProductRow[]) if (!(await builder.add(row, slices))) return false;
        return true;
      },
      FETCH_ENTRIES / Math.max(1, entries / Math.max(1, count)),
    );
    const titleRows = await rows(client, 'SELECT id, title FROM collections WHERE project_id = $1', [projectId]);
    return builder.finish(slices, new Map(titleRows.map((row) => [row[0] as string, row[1] as string])));
  });
}

/**
 * The index of the products `ids` alone (those of them that are searchable now), read by one statement, with
 * `base`'s collection titles (a change of collections is not applied this way: ProductSegments). `ids` are few
 * (the changed products a write names), so their rows are read at once; the bound is checked as they are added.
 */
export async function buildChangedProducts(
  pool: pg.Pool,
  projectId: string,
  ids: string[],
  base: ProductIndex,
  bound: IndexBound,
): Promise<ProductIndex | null> {
  const result = await pool.query<ProductRow>({
    text: `SELECT ${ROW_COLUMNS} FROM search_products WHERE project_id = $1 AND product_id = ANY($2::text[])
           ORDER BY product_id`,
    values: [projectId, ids],
    rowMode: 'array',
  });
  // A tsvectorsend value starts with its count of entries.
  const entries = result.rows.reduce(
    (sum, row) => sum + new DataView(row[11].buffer, row[11].byteOffset).getInt32(0),
    0,
  );
  const builder = new ProductIndexBuilder(result.rows.length, entries, bound);
  const slices = new Slices();
  for (const row of result.rows) if (!(await builder.add(row, slices))) break;
  return builder.finish(slices, base.collectionTitles);
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
