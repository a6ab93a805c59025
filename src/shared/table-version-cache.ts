import { ProjectIndexes, type IndexLimits } from './project-indexes.js';
import type { ChangeFeed } from './change-feed.js';
import { TableVersions } from './table-versions.js';
import { VerifiedTokens } from './verified-tokens.js';
import { VersionedTexts } from './versioned-texts.js';

/**
 * Values derived from a project's rows in some tables, cached per (project, key): an entry is served only while
 * the change feed listens, once every notification of what committed before the read began has been heard
 * (TableVersions.caughtUp: one shared round trip on the listening connection), and none of its tables changed
 * since it was computed (every table named must carry
 * the table_changed statement trigger, so any write notifies on commit, raw SQL included), nor, with
 * `projectWrites` (the default), the project through this process's writes. With `waitForOthers: false` an entry is
 * served without that round trip (what other processes wrote shows once its notification arrives, within
 * milliseconds): for values read inside write transactions, which must not wait on the listener with their
 * locks held. Bounded (`maxEntries`, least
 * recently used out). With `shareMisses` (the default) concurrent misses of a key share one computation, which
 * values read inside a caller's transaction must not do. Without the listener every read computes.
 */
export class TableVersionCache<T> {
  private readonly entries: Map<string, { value: T; versions: number[]; projectId: string }>;
  /** Each project's keys, least recently used first: a project holds at most `maxPerProject` entries. */
  private readonly byProject: Map<string, Set<string>>;
  /** Computations under way: concurrent misses of one key wait for the same one (no stampede after a change). */
  private readonly pending: Map<string, { value: Promise<T>; versions: number[] }>;
  private readonly counts: { hits: number; misses: number };
  private readonly shareMisses: boolean;
  private readonly projectWrites: boolean;
  private readonly waitForOthers: boolean;
  /** Set on a view reading from a source that may lag: whether a computation starting now may be stored. */
  private readonly current?: (projectId: string) => boolean;

  constructor(
    private readonly versions: TableVersions,
    private readonly maxEntries: number,
    options: { shareMisses?: boolean; projectWrites?: boolean; waitForOthers?: boolean } = {},
    shared?: { from: TableVersionCache<T>; current: (projectId: string) => boolean },
  ) {
    this.shareMisses = options.shareMisses ?? true;
    this.projectWrites = options.projectWrites ?? true;
    this.waitForOthers = options.waitForOthers ?? true;
    this.entries = shared?.from.entries ?? new Map<string, { value: T; versions: number[]; projectId: string }>();
    this.byProject = shared?.from.byProject ?? new Map<string, Set<string>>();
    this.pending = shared?.from.pending ?? new Map<string, { value: Promise<T>; versions: number[] }>();
    this.counts = shared?.from.counts ?? { hits: 0, misses: 0 };
    this.current = shared?.current;
  }

  /** Answers served from the cache since the process started (for the metrics). */
  get hits(): number {
    return this.counts.hits;
  }

  /** Answers computed since the process started (for the metrics). */
  get misses(): number {
    return this.counts.misses;
  }

  /**
   * The same entries, for requests that compute from a source that may lag behind the primary (a read replica):
   * entries are served as usual, and a computed value is stored only when `current(project)` held as it began (the source
   * had replayed every change heard of); its computations are never shared with other requests.
   */
  readingFrom(current: (projectId: string) => boolean): TableVersionCache<T> {
    return new TableVersionCache<T>(
      this.versions,
      this.maxEntries,
      { shareMisses: this.shareMisses, projectWrites: this.projectWrites, waitForOthers: this.waitForOthers },
      { from: this, current },
    );
  }

  /**
   * The value for `key` (which must hold every input), computed from `tables`: the cached one when still exact
   * (and, with `fresh`, while `fresh(value)` holds: for values that also depend on the time), else `compute()`'s
   * answer, cached.
   */
  async get(
    projectId: string,
    key: string,
    tables: readonly string[],
    compute: () => Promise<T>,
    fresh?: (value: T) => boolean,
  ): Promise<T> {
    const cacheKey = `${projectId}|${key}`;
    // A kept value (or a computation under way) may predate a write another process answered before this read
    // began, its notification still on the way: it is served only once every notification sent before now is in.
    const kept = this.entries.has(cacheKey) || (this.shareMisses && this.pending.has(cacheKey));
    if (this.waitForOthers && this.versions.listening && kept) await this.versions.caughtUp();
    const versions = this.versions.versionsOf(projectId, tables, this.projectWrites);
    const same = (other: number[]) => other.every((version, i) => version === versions[i]);
    const entry = this.entries.get(cacheKey);
    if (this.versions.listening && entry && same(entry.versions) && (!fresh || fresh(entry.value))) {
      this.entries.delete(cacheKey); // most recently used last
      this.entries.set(cacheKey, entry);
      const keys = this.byProject.get(projectId)!;
      keys.delete(cacheKey);
      keys.add(cacheKey);
      this.counts.hits++;
      return entry.value;
    }
    const running = this.pending.get(cacheKey);
    // A computation that started at these versions answers as exactly as a new one would.
    if (this.shareMisses && this.versions.listening && running && same(running.versions)) {
      this.counts.hits++;
      return running.value;
    }
    this.counts.misses++;
    const wasListening = this.versions.listening && (this.current?.(projectId) ?? true);
    const share = this.shareMisses && !this.current;
    const value = compute();
    if (share) this.pending.set(cacheKey, { value, versions });
    try {
      const result = await value;
      const after = this.versions.versionsOf(projectId, tables, this.projectWrites);
      if (wasListening && this.versions.listening && same(after)) this.store(projectId, cacheKey, result, versions);
      return result;
    } finally {
      if (this.pending.get(cacheKey)?.value === value) this.pending.delete(cacheKey);
    }
  }

  /**
   * Keeps `value` under `cacheKey`: past the project's share (a quarter of the entries) its own least recently used
   * entry goes, else past the bound the process's least recently used, so one project's many keys never push every
   * other project's entries out.
   */
  private store(projectId: string, cacheKey: string, value: T, versions: number[]): void {
    this.drop(cacheKey);
    let keys = this.byProject.get(projectId);
    if (!keys) this.byProject.set(projectId, (keys = new Set()));
    if (keys.size >= Math.max(1, Math.ceil(this.maxEntries / PROJECT_SHARE))) this.drop(keys.values().next().value!);
    else if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value!);
    this.entries.set(cacheKey, { value, versions, projectId });
    keys.add(cacheKey);
  }

  private drop(cacheKey: string): void {
    const entry = this.entries.get(cacheKey);
    if (!entry) return;
    this.entries.delete(cacheKey);
    const keys = this.byProject.get(entry.projectId)!;
    keys.delete(cacheKey);
    if (keys.size === 0) this.byProject.delete(entry.projectId);
  }
}

// One project holds at most this part of a cache's entries (a quarter).
const PROJECT_SHARE = 4;

/** The process's caches (`deps.caches`, `ctx.caches`), each named for what it holds; all but `accessTokens` and `productJson` kept exact by the change feed. */
export interface ProcessCaches {
  /** The table and project versions every cache below checks its entries against; writers bump them. */
  versions: TableVersions;
  /** `pagination.total` of list first pages, per list and filters (`listPage`'s `cacheTotals`), so a first page costs no count(*). */
  listTotals: TableVersionCache<number>;
  /**
   * The event types a project's active webhook subscriptions listen to (webhook fan-out); only subscription
   * writes make it stale, so other writes of the project keep it.
   */
  webhookEventTypes: TableVersionCache<ReadonlySet<string>>;
  /** Search and suggest answers (`SEARCH_CACHE`, on by default). */
  searchAnswers: TableVersionCache<unknown>;
  /**
   * Per project, what suggestions are ranked from (title words, collection titles, the vocabulary, the suggestable
   * past queries and the blocks), so a suggestion list needs no statement (src/modules/search/suggest-index.ts);
   * rebuilt when the tables it is read from change (SUGGEST_INDEX, on by default).
   */
  suggestIndexes: ProjectIndexes<unknown>;
  /**
   * Per project, its searchable products (documents with postings, and the fields filters, facets and hits
   * read), so a product search is matched, ranked and counted without a statement
   * (src/modules/search/product-index.ts), and its active synonyms and merchandising rules; rebuilt when
   * search_products or collections change, the rules when search_synonym_groups, search_merchandising_rules or
   * products do (SEARCH_INDEX, on by default).
   */
  productIndexes: ProjectIndexes<unknown>;
  /**
   * The price keys a customer buys from (its own, its groups' and companies'), per customer; stale when the
   * customer, its addresses, groups, group memberships, companies or contacts change.
   */
  customerPriceKeys: TableVersionCache<CustomerPriceKeys | null>;
  /**
   * Whether an access token's session is live (not ended, customer not deleted), per session; stale when any
   * session or customer changes, or this process writes to the project (a logout here is seen by the next request).
   */
  liveSessions: TableVersionCache<LiveSession | null>;
  /**
   * Storefront `customer_price`s: the unit price of one unit of each variant of a page's products, per set of
   * price keys and page (shared by every customer with those keys); stale when products, variants, price lists
   * or their prices change, and when a list's starts_at or ends_at passes.
   */
  resolvedPrices: TableVersionCache<unknown>;
  /**
   * Storefront access tokens this process verified, with their customer and session, until each expires (the
   * signature check is skipped, not the live-session check); needs no change feed, since a signature never changes.
   */
  accessTokens: VerifiedTokens<{ customerId: string; sessionId: string }>;
  /**
   * Each listed product's JSON text per view, with the version (xmin) of the rows it was written from, so a list page
   * whose statement reads the same version sends the kept text; needs no change feed, since a write to any of
   * those rows changes their version.
   */
  productJson: VersionedTexts;
}

/** A customer's price keys as resolution reads them: its own active_price_key and those of its groups and companies. */
export interface CustomerPriceKeys {
  own: string | null;
  shared: readonly string[];
}

/** A session that has not ended, of a customer not deleted: whose it is. */
export interface LiveSession {
  projectId: string;
  customerId: string;
}

// A count or a set of event types is a few bytes: 10,000 entries of either cost under a few MB.
const MAX_LIST_TOTALS = 10_000;
const MAX_WEBHOOK_EVENT_TYPES = 10_000;
// Answers are a few kB (a page of hits and the facets): 2,000 of them stay well under 50 MB.
const MAX_SEARCH_ANSWERS = 2_000;
// Three indexes per project (its catalog's words, its vocabulary and its past queries), at most 32 projects' and 40 MB (as estimated),
// one project's at most 24 MB: at 100,000 products a catalog's is about 12 MB (bench/README.md), and a build briefly
// needs some 50 MB more. Small projects' are small: the count only keeps a process serving many of them from
// rebuilding one on every suggestion. SUGGEST_INDEX_MB and SUGGEST_INDEX_PROJECT_MB set the two bounds.
export const SUGGEST_INDEX_LIMITS: IndexLimits = {
  maxIndexes: 96,
  maxBytes: 40 * 1024 * 1024,
  maxProjectBytes: 24 * 1024 * 1024,
};
// Two entries per project (its products, and its synonyms and rules), at most 32 projects' and 128 MB (as estimated),
// one project's at most 96 MB: at 100,000 products the product index is about 87 MB by its estimate (95 MB measured:
// 27 MB of heap, 66 MB of typed arrays; bench/README.md), and a build briefly needs about as much again. A project
// whose index would exceed its bound is searched by the statements. SEARCH_INDEX_MB and SEARCH_INDEX_PROJECT_MB set them.
export const PRODUCT_INDEX_LIMITS: IndexLimits = {
  maxIndexes: 64,
  maxBytes: 128 * 1024 * 1024,
  maxProjectBytes: 96 * 1024 * 1024,
};
// A customer's keys or a session's owner is under 200 bytes: 50,000 of each stay around 10 MB.
const MAX_CUSTOMER_PRICE_KEYS = 50_000;
const MAX_LIVE_SESSIONS = 50_000;
// A page's resolved prices hold at most 50 variants' (about 3 kB): 5,000 pages stay under 20 MB.
const MAX_RESOLVED_PRICES = 5_000;
// A verified token's entry is a digest and two ids (about 200 bytes): 20,000 stay under 5 MB (a project's at most 5,000).
const MAX_ACCESS_TOKENS = 20_000;
// A product's JSON is about 1 kB with two variants: 8 million characters keep some 7,000 of them in 8-16 MB (a
// project's at most 2 million).
const MAX_PRODUCT_JSON_LENGTH = 8_000_000;

/** The index limits with the configured bounds (in MB; undefined: the default) in place of the defaults. */
export function indexLimitsOf(megabytes: {
  products?: number;
  productsPerProject?: number;
  suggest?: number;
  suggestPerProject?: number;
}): { products: IndexLimits; suggest: IndexLimits } {
  const bytes = (mb: number | undefined, fallback: number) => (mb === undefined ? fallback : mb * 1024 * 1024);
  return {
    products: {
      ...PRODUCT_INDEX_LIMITS,
      maxBytes: bytes(megabytes.products, PRODUCT_INDEX_LIMITS.maxBytes),
      maxProjectBytes: bytes(megabytes.productsPerProject, PRODUCT_INDEX_LIMITS.maxProjectBytes),
    },
    suggest: {
      ...SUGGEST_INDEX_LIMITS,
      maxBytes: bytes(megabytes.suggest, SUGGEST_INDEX_LIMITS.maxBytes),
      maxProjectBytes: bytes(megabytes.suggestPerProject, SUGGEST_INDEX_LIMITS.maxProjectBytes),
    },
  };
}

/**
 * The process's caches on `feed` (create them before the feed starts, so they hear every notification);
 * `onIndexError` hears a suggest index build that failed (the requests read from the database meanwhile).
 */
export function createProcessCaches(
  feed: ChangeFeed,
  onIndexError?: (error: unknown) => void,
  limits: { products?: IndexLimits; suggest?: IndexLimits } = {},
): ProcessCaches {
  const sizeOf = (index: unknown) => (index as { bytes?: number } | null)?.bytes ?? 0;
  const versions = new TableVersions(feed);
  return {
    versions,
    // Both are read inside the caller's transaction: a miss is never shared with another request.
    listTotals: new TableVersionCache<number>(versions, MAX_LIST_TOTALS, { shareMisses: false }),
    // Read by every write that records an event, with its locks held: it does not wait for other processes'
    // notifications (a subscription another process just made is seen once its notification arrives).
    webhookEventTypes: new TableVersionCache<ReadonlySet<string>>(versions, MAX_WEBHOOK_EVENT_TYPES, {
      shareMisses: false,
      projectWrites: false,
      waitForOthers: false,
    }),
    searchAnswers: new TableVersionCache<unknown>(versions, MAX_SEARCH_ANSWERS),
    suggestIndexes: new ProjectIndexes<unknown>(
      versions,
      { ...(limits.suggest ?? SUGGEST_INDEX_LIMITS), sizeOf },
      onIndexError,
    ),
    productIndexes: new ProjectIndexes<unknown>(
      versions,
      { ...(limits.products ?? PRODUCT_INDEX_LIMITS), sizeOf },
      onIndexError,
    ),
    customerPriceKeys: new TableVersionCache<CustomerPriceKeys | null>(versions, MAX_CUSTOMER_PRICE_KEYS),
    liveSessions: new TableVersionCache<LiveSession | null>(versions, MAX_LIVE_SESSIONS),
    resolvedPrices: new TableVersionCache<unknown>(versions, MAX_RESOLVED_PRICES),
    accessTokens: new VerifiedTokens(MAX_ACCESS_TOKENS),
    productJson: new VersionedTexts(MAX_PRODUCT_JSON_LENGTH),
  };
}

/**
 * The same caches for requests that read from a source that may lag behind the primary (a read replica): each
 * serves its entries, and stores what it computes for a project only when `current(project)` held as the computation
 * began.
 */
export function cachesReadingFrom(caches: ProcessCaches, current: (projectId: string) => boolean): ProcessCaches {
  return {
    ...caches,
    listTotals: caches.listTotals.readingFrom(current),
    webhookEventTypes: caches.webhookEventTypes.readingFrom(current),
    searchAnswers: caches.searchAnswers.readingFrom(current),
    suggestIndexes: caches.suggestIndexes.readingFrom(current),
    productIndexes: caches.productIndexes.readingFrom(current),
    customerPriceKeys: caches.customerPriceKeys.readingFrom(current),
    liveSessions: caches.liveSessions.readingFrom(current),
    resolvedPrices: caches.resolvedPrices.readingFrom(current),
  };
}
