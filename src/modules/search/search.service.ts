import type { operations } from '../../generated/openapi.js';
import type { Database } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { minorUnitRate } from '../../shared/currency-digits.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { lowestCustomerPrices } from '../catalog/index.js';
import { searchClientHash } from './search-client.js';
import { recordSearch } from './search-log.js';
import { placePins, planRules, type ActiveRule, type RulePlan } from './merchandising-rules.js';
import { normalizeQuery } from './query-parser.js';
import { planQuery, wordsToCheck, type QueryPlan, type VocabularyHit } from './search-plan.js';
import { indexEngine } from './product-index.search.js';
import { productIndexOf, productIndexReady, refreshProductIndex } from './product-segments.js';
import { searchVocabularyOf, searchVocabularyReady } from './search-vocabulary.js';
import { suggestCatalogReady } from './suggest-index.js';
import { indexableWord, termCandidates, termStartsWith } from './suggest-index.reads.js';
import type { IndexPatch, ProjectIndexes } from '../../shared/project-indexes.js';
import { runProductSearch, statementEngine, type ProductRowJson, type ProductSearch } from './search.sql.js';
import type { SynonymRule } from './synonyms-expand.js';
import { termSql } from './tsquery.js';
import { runCollectionSearch } from './collection-search.sql.js';
import { toProductHit, type ProductHit } from './search.mappers.js';
import { forgetProductIndexCaches, forgetVocabularyCaches } from './index-caches.js';

type SearchQuery = NonNullable<operations['searchCatalog']['parameters']['query']>;
type SearchResult = operations['searchCatalog']['responses'][200]['content']['application/json']['data'];

/**
 * The factor from minor units of the project's currency to minor units of `currency`: the project's exchange rate,
 * scaled by the currencies' minor units (minorUnitRate: cents to yen divides by 100); 400 when the project has none.
 */
export function exchangeRate(ctx: Ctx, currency: string | undefined): number {
  if (!currency || currency === ctx.project.currency) return 1;
  const rates = (ctx.project.exchangeRates ?? {}) as Record<string, unknown>;
  const rate = Number(rates[currency]);
  if (!Number.isFinite(rate) || rate <= 0) {
    throw invalidField(
      'currency',
      `This project has no exchange rate for ${currency}. Known: ${[ctx.project.currency, ...Object.keys(rates)].join(', ')}.`,
    );
  }
  return minorUnitRate(rate, ctx.project.currency, currency);
}

// What each cached answer is computed from: a write to any of these tables (any process, through the
// table_changed triggers) or any write of the project in this process (writeTx) makes the entry stale.
const CONTEXT_TABLES = ['search_synonym_groups', 'search_merchandising_rules', 'products', 'search_terms'];
const PRODUCT_TABLES = ['search_products', 'collections'];
const COLLECTION_TABLES = ['collections', 'collection_products', 'products'];

/**
 * `compute()` through the process's search answer cache (`caches.searchAnswers`, kept exact by the change
 * feed, see TableVersionCache), or directly when there is none (no change feed, or SEARCH_CACHE=off). `key`
 * must hold every input.
 */
export function cachedSearch<T>(
  ctx: Ctx,
  enabled: boolean,
  key: string,
  tables: readonly string[],
  compute: () => Promise<T>,
): Promise<T> {
  if (!enabled || !ctx.caches) return compute();
  return ctx.caches.searchAnswers.get(ctx.project.id, key, tables, compute) as Promise<T>;
}

/**
 * The product part of a search (it reads only search_products and collection titles), cached; answered from the
 * project's in-process index when `index` and it is exact now, else by the statements (the index's own caches
 * forgotten first unless `indexCaches`: index-caches.ts).
 */
function productSearch(ctx: Ctx, cache: boolean, index: boolean, indexCaches: boolean, search: ProductSearch) {
  const key = `products|${JSON.stringify({ ...search, multipliers: [...search.multipliers] })}`;
  return cachedSearch(ctx, cache, key, PRODUCT_TABLES, async () => {
    const products = index ? await productIndexOf(ctx) : undefined;
    if (products && !indexCaches) forgetProductIndexCaches(ctx, products);
    return runProductSearch(products ? indexEngine(ctx, products) : statementEngine(ctx), search);
  });
}

type SearchContext = { synonyms: SynonymRule[]; rules: ActiveRule[]; vocabulary: VocabularyHit[] };

/** The project's active synonym groups and active rules on live products, and the vocabulary candidates of the words, in one round trip. */
async function loadContext(ctx: Ctx, words: string[]): Promise<SearchContext> {
  const [row] = await ctx.db.$queryRaw<SearchContext[]>`
    SELECT
      (SELECT coalesce(json_agg(json_build_object('synonymType', synonym_type, 'terms', terms)), '[]')
         FROM search_synonym_groups WHERE project_id = ${ctx.project.id} AND is_active) AS synonyms,
      (SELECT coalesce(json_agg(json_build_object('id', r.id, 'matchQuery', r.match_query, 'matchType', r.match_type, 'action', r.action,
              'productId', r.product_id, 'pinPosition', r.pin_position, 'scoreMultiplier', r.score_multiplier)
              ORDER BY r.priority DESC, r.created_at, r.id), '[]')
         FROM search_merchandising_rules r JOIN products p ON p.id = r.product_id AND p.deleted_at IS NULL
         WHERE r.project_id = ${ctx.project.id} AND r.is_active) AS rules,
      (SELECT coalesce(json_agg(json_build_object('word', word, 'term', term, 'docCount', doc_count, 'prefixKnown', prefix_known)), '[]')
         FROM search_term_candidates(${ctx.project.id}, ${words}::text[])) AS vocabulary`;
  return row;
}

// What the synonyms and rules are read from: a write to any of them makes the in-process copy stale.
const RULE_TABLES = ['search_synonym_groups', 'search_merchandising_rules', 'products'];

/** Builds what indexed searches read (product index, synonyms and rules, the suggest index's vocabulary) now; whether all are exact (warm-up, tests). */
export async function searchIndexesReady(ctx: Ctx): Promise<boolean> {
  const indexes = ctx.caches?.productIndexes as ProjectIndexes<SearchContext> | undefined;
  if (!indexes) return false;
  const [products, rules, vocabulary, suggestions] = await Promise.all([
    productIndexReady(ctx),
    indexes.ready(ctx.project.id, 'search-context', RULE_TABLES, () => loadContext(ctx, []), rulesPatch(ctx)),
    searchVocabularyReady(ctx),
    suggestCatalogReady(ctx),
  ]);
  return Boolean(products && rules && vocabulary && suggestions);
}

/** The synonyms and rules read again after a write to products (a rule on a deleted product no longer applies): one statement. */
const rulesPatch = (ctx: Ctx): IndexPatch<SearchContext> => ({
  table: 'products',
  byRows: false,
  apply: () => loadContext(ctx, []),
  compact: () => false,
});

const CONTEXT_WAIT_MS = 50;

/**
 * The search context from the process's indexes when both are exact now (waiting up to 50 ms for a write to be
 * applied) and every word is one the vocabulary answers exactly: synonyms and rules (kept per project beside its
 * product index) and the vocabulary candidates as search_term_candidates finds them (search-vocabulary.ts).
 * Otherwise undefined (the statement answers).
 */
async function indexedContext(ctx: Ctx, words: string[], indexCaches: boolean): Promise<SearchContext | undefined> {
  const indexes = ctx.caches?.productIndexes as ProjectIndexes<SearchContext> | undefined;
  if (!indexes || !words.every(indexableWord)) return undefined;
  const [rules, vocabularyIndex] = await Promise.all([
    indexes.waitingGet(
      ctx.project.id,
      'search-context',
      RULE_TABLES,
      () => loadContext(ctx, []),
      rulesPatch(ctx),
      CONTEXT_WAIT_MS,
    ),
    searchVocabularyOf(ctx),
  ]);
  if (!rules || !vocabularyIndex) return undefined;
  if (!indexCaches) forgetVocabularyCaches(vocabularyIndex);
  const vocabulary = words.flatMap((word): VocabularyHit[] => {
    const prefixKnown = termStartsWith(vocabularyIndex, word);
    const candidates = termCandidates(vocabularyIndex, word);
    if (candidates.length === 0) return [{ word, term: null, docCount: null, prefixKnown }];
    return candidates.map((c) => ({ word, term: c.term, docCount: c.docCount, prefixKnown }));
  });
  return { synonyms: rules.synonyms, rules: rules.rules, vocabulary };
}

/** Which alternatives of the plan each product matches, for explain. */
async function matchedTerms(ctx: Ctx, plan: QueryPlan, ids: string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0 || plan.terms.length === 0) return new Map();
  const values = Prisma.join(plan.terms.map((term, i) => Prisma.sql`(${i}::int, ${termSql(term)})`));
  const rows = await ctx.db.$queryRaw<Array<{ id: string; matched: number[] }>>`
    SELECT s.product_id AS id, coalesce(array_agg(t.i ORDER BY t.i) FILTER (WHERE s.document @@ t.q), '{}') AS matched
    FROM search_products s CROSS JOIN (VALUES ${values}) AS t(i, q)
    WHERE s.product_id = ANY(${ids}::text[]) GROUP BY s.product_id`;
  return new Map(rows.map((r) => [r.id, r.matched.map((i) => plan.terms[i].text)]));
}

function explainOf(plan: QueryPlan, rules: RulePlan, row: ProductRowJson, matched: string[]) {
  const found = new Set(matched);
  return {
    matched_terms: matched,
    dropped_words: row.missing.map((i) => plan.words[i].text),
    corrections: plan.corrections.filter((c) => found.has(c.to)),
    synonyms: plan.synonyms
      .filter((s) => s.expandedTo.some((t) => found.has(t)))
      .map((s) => ({ term: s.term, expanded_to: s.expandedTo })),
    rules: rules.applied.get(row.id) ?? [],
    text_score: row.text_score,
    final_score: row.final_score,
  };
}

/**
 * Searches the project's active products (and collections when asked): query language, typo correction,
 * synonyms, merchandising rules, filters, facets and currency; logs the search for analytics (with a keyed
 * hash of the client, see searchClientHash) without waiting for the write.
 */
export async function searchCatalog(
  ctx: Ctx,
  query: SearchQuery,
  // logTo: where the search log is written (the primary when ctx.db is a read replica's); indexCaches: false only
  // to benchmark (SEARCH_INDEX_CACHES=off, index-caches.ts).
  options: {
    cache?: boolean;
    index?: boolean;
    indexCaches?: boolean;
    clientAddress?: string;
    log?: boolean;
    logTo?: Database;
  } = {},
): Promise<SearchResult> {
  const cache = options.cache ?? false;
  const indexCaches = options.indexCaches ?? true;
  const started = performance.now();
  if (query.explain && !(ctx.actor.kind === 'api_key' && ctx.actor.keyType === 'secret')) {
    throw new AppError('forbidden', 'explain=true requires a secret API key.');
  }
  const rate = exchangeRate(ctx, query.currency);
  const currency = query.currency ?? ctx.project.currency;
  const types = query.types ?? ['products'];
  const take = query.limit ?? 20;
  const skip = query.offset ?? 0;
  const normalized = normalizeQuery(query.q);
  const words = wordsToCheck(query.q);
  // The product index's pending changes are applied while the context is read, not after.
  if (options.index && types.includes('products')) refreshProductIndex(ctx);
  const context =
    (options.index ? await indexedContext(ctx, words, indexCaches) : undefined) ??
    (await cachedSearch(ctx, cache, `context|${JSON.stringify(words)}`, CONTEXT_TABLES, () => loadContext(ctx, words)));
  const plan = planQuery(query.q, context.synonyms, context.vocabulary);
  const empty = plan.full.must.length === 0;
  const rules = planRules(context.rules, normalized);
  const pinnedIds = rules.pins.map((p) => p.productId);
  const [products, collections] = await Promise.all([
    types.includes('products') && !empty
      ? productSearch(ctx, cache, options.index ?? false, indexCaches, {
          full: plan.full,
          exact: plan.exact,
          relaxable: plan.words.map((w) => w.relaxable),
          head: plan.head,
          titleText: plan.titleText,
          pairs: plan.pairs,
          relaxBelow: take,
          rate,
          hidden: rules.hidden,
          pinned: pinnedIds,
          multipliers: rules.multipliers,
          take: pinnedIds.length > 0 ? skip + take : take,
          skip: pinnedIds.length > 0 ? 0 : skip,
          facets: query.facets ?? true,
          filters: {
            productType: query.product_type,
            collectionId: query.collection_id,
            tag: query.tag,
            inStock: query.in_stock,
            priceMin: query.price_min,
            priceMax: query.price_max,
          },
        })
      : undefined,
    types.includes('collections') && !empty
      ? cachedSearch(ctx, cache, `collections|${take}|${skip}|${JSON.stringify(plan.full)}`, COLLECTION_TABLES, () =>
          runCollectionSearch(ctx, plan.full, take, skip),
        )
      : undefined,
  ]);
  let rows = products?.hits ?? [];
  if (products && pinnedIds.length > 0) {
    const byId = new Map(products.pinned.map((p) => [p.id, p]));
    const pins = rules.pins
      .filter((p) => byId.has(p.productId))
      .map((p) => ({ item: byId.get(p.productId)!, position: p.position }));
    rows = placePins(rows, pins).slice(skip, skip + take);
  }
  const matched = query.explain
    ? await matchedTerms(
        ctx,
        plan,
        rows.map((r) => r.id),
      )
    : undefined;
  const wordCount = plan.full.must.length;
  // A signed-in customer's prices are added to each answer, never cached with it: the cache stays list-free.
  const customerPrices = await lowestCustomerPrices(
    ctx,
    rows.map((row) => row.id),
  );
  const hits: ProductHit[] = rows.map((row) => {
    const hit = toProductHit(
      row,
      wordCount,
      currency,
      matched ? explainOf(plan, rules, row, matched.get(row.id) ?? []) : undefined,
    );
    const customerPrice = customerPrices?.get(row.id);
    if (customerPrice !== undefined) hit.customer_price = Math.round(customerPrice * rate);
    return hit;
  });
  const relaxation = products?.relaxation
    ? {
        strict_total: products.strictTotal,
        words: wordCount,
        min_matched_words: products.relaxation.minMatched,
        dropped_words: products.relaxation.unmatched.map((i) => plan.words[i].text),
      }
    : undefined;
  const productTotal = products?.total ?? 0;
  const collectionTotal = collections?.total ?? 0;
  if (options.log ?? true) {
    recordSearch(
      options.logTo ?? ctx.db,
      {
        projectId: ctx.project.id,
        query: normalized,
        resultCount: productTotal + collectionTotal,
        tookMs: performance.now() - started,
        clientHash: searchClientHash(ctx, options.clientAddress),
      },
      ctx.caches?.versions,
    );
  }
  return {
    products: {
      data: hits,
      total: productTotal,
      ...(relaxation ? { relaxation } : {}),
      ...(products?.facets ? { facets: products.facets } : {}),
    },
    collections: { data: collections?.hits ?? [], total: collectionTotal },
  };
}
