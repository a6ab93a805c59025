/** Merchandising rules, pure: which rules match a query, what they do, and where pins land. */
import { normalizeText } from './query-parser.js';

export type RuleAction = 'pin' | 'boost' | 'bury' | 'hide';
export type MatchType = 'contains' | 'exact' | 'all';

export interface ActiveRule {
  id: string;
  matchQuery: string;
  matchType: MatchType;
  action: RuleAction;
  productId: string;
  pinPosition: number | null;
  scoreMultiplier: number | null;
}

export interface RulePlan {
  hidden: string[];
  /** product id -> zero-based position, in the order the rules placed them. */
  pins: Array<{ productId: string; position: number; ruleId: string }>;
  /** product id -> product of the multipliers of its boost and bury rules. */
  multipliers: Map<string, number>;
  /** product id -> the rules that acted on it. */
  applied: Map<string, Array<{ id: string; action: RuleAction }>>;
}

/** exact: the normalized query equals match_query; contains: holds it as a phrase; all: holds each of its words. */
export function ruleMatches(rule: Pick<ActiveRule, 'matchQuery' | 'matchType'>, normalizedQuery: string): boolean {
  const target = normalizeText(rule.matchQuery);
  if (!target) return false;
  switch (rule.matchType) {
    case 'exact':
      return normalizedQuery === target;
    case 'contains':
      return ` ${normalizedQuery} `.includes(` ${target} `);
    case 'all': {
      const words = new Set(normalizedQuery.split(' '));
      return target.split(' ').every((w) => words.has(w));
    }
  }
}

/**
 * What the matching rules do, taken in the given order (priority descending, then oldest): the first
 * hide or pin rule on a product decides it (a hidden product is not pinned, a pinned one not hidden);
 * boosts and buries multiply.
 */
export function planRules(rules: ActiveRule[], normalizedQuery: string): RulePlan {
  const plan: RulePlan = { hidden: [], pins: [], multipliers: new Map(), applied: new Map() };
  const decided = new Set<string>();
  const note = (rule: ActiveRule) => {
    if (!plan.applied.has(rule.productId)) plan.applied.set(rule.productId, []);
    plan.applied.get(rule.productId)!.push({ id: rule.id, action: rule.action });
  };
  for (const rule of rules) {
    if (!ruleMatches(rule, normalizedQuery)) continue;
    if (rule.action === 'boost' || rule.action === 'bury') {
      plan.multipliers.set(rule.productId, (plan.multipliers.get(rule.productId) ?? 1) * (rule.scoreMultiplier ?? 1));
      note(rule);
      continue;
    }
    if (decided.has(rule.productId)) continue;
    decided.add(rule.productId);
    note(rule);
    if (rule.action === 'hide') plan.hidden.push(rule.productId);
    else plan.pins.push({ productId: rule.productId, position: rule.pinPosition ?? 0, ruleId: rule.id });
  }
  return plan;
}

/**
 * The ranked list with pinned items placed: each pin (in rule order) takes its position, or the next free
 * one after it when a stronger pin has it; organic items fill the other places in order. Pins beyond the
 * end of the list go at its end.
 */
export function placePins<T>(organic: T[], pinned: Array<{ item: T; position: number }>): T[] {
  const slots = new Map<number, T>();
  for (const { item, position } of pinned) {
    let at = position;
    while (slots.has(at)) at += 1;
    slots.set(at, item);
  }
  const result: T[] = [];
  const rest = [...organic];
  const total = organic.length + pinned.length;
  const leftovers = [...slots.entries()].sort((a, b) => a[0] - b[0]);
  for (let i = 0; result.length < total; i++) {
    if (slots.has(i)) {
      result.push(slots.get(i)!);
      slots.delete(i);
    } else if (rest.length > 0) {
      result.push(rest.shift()!);
    } else {
      // No organic items left: the remaining pins follow in position order.
      for (const [at, item] of leftovers) if (slots.has(at)) result.push(item);
      break;
    }
  }
  return result;
}
