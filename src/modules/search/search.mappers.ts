import type { components } from '../../generated/openapi.js';
import type { MerchandisingRule, SynonymGroup } from '../../generated/prisma/client.js';
import type { ProductRowJson } from './search.sql.js';

export type ProductHit = components['schemas']['SearchProductHit'];
type Explain = components['schemas']['SearchExplain'];

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * A ranked product row as a search hit (score rounded to 6 decimals; relaxed when it matches fewer than
 * the query's `words`), with its explanation when asked.
 */
export function toProductHit(row: ProductRowJson, words: number, currency: string, explain?: Explain): ProductHit {
  return {
    id: row.id,
    title: row.title,
    handle: row.handle,
    status: 'active',
    product_type: row.product_type,
    image: row.image,
    price: row.price,
    sale_price: row.sale_price,
    currency,
    in_stock: row.in_stock,
    score: round(row.final_score),
    matched_words: row.matched_words,
    relaxed: row.matched_words < words,
    ...(explain
      ? { explain: { ...explain, text_score: round(explain.text_score), final_score: round(explain.final_score) } }
      : {}),
  };
}

/** A synonym group row as the API shows it. */
export function toSynonymGroupResource(row: SynonymGroup): components['schemas']['SynonymGroup'] {
  return {
    id: row.id,
    synonym_type: row.synonymType as 'equivalent' | 'oneway',
    terms: row.terms,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A merchandising rule row as the API shows it. */
export function toMerchandisingRuleResource(row: MerchandisingRule): components['schemas']['MerchandisingRule'] {
  return {
    id: row.id,
    name: row.name,
    match_query: row.matchQuery,
    match_type: row.matchType as 'contains' | 'exact' | 'all',
    action: row.action as 'pin' | 'boost' | 'bury' | 'hide',
    product_id: row.productId,
    pin_position: row.pinPosition,
    score_multiplier: row.scoreMultiplier,
    priority: row.priority,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
