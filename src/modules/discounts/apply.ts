/**
 * Which discount codes and automatic promotions apply to a basket, and how much each takes off which lines: pure
 * (openapi.yaml, the discounts tag: "Conditions", "Stacking", "Rounding"). Amounts are integer minor units.
 */
import { allocate, percentOf, percentPerLine } from './money.js';

export type DiscountType = 'percentage' | 'fixed_amount' | 'free_shipping' | 'buy_x_get_y' | 'tiered';
export type NotApplicableReason = 'min_subtotal' | 'products' | 'customer' | 'currency' | 'not_combinable';

export interface Conditions {
  min_subtotal: number | null;
  product_ids: string[];
  collection_ids: string[];
  product_types: string[];
  customer_group_ids: string[];
  customer_ids: string[];
  currency: string | null;
}

export interface Tier {
  min_subtotal: number;
  type: 'percentage' | 'fixed_amount';
  value: number;
}

export interface BuyXGetY {
  buy_quantity: number;
  get_quantity: number;
  get_percentage: number;
}

/** A discount code or an automatic promotion as the evaluation needs it. */
export interface Rule {
  id: string;
  source: 'code' | 'promotion';
  code: string | null;
  title: string;
  type: DiscountType;
  value: number;
  target: 'order' | 'lines';
  conditions: Conditions;
  combinable: boolean;
  priority: number;
  buyXGetY: BuyXGetY | null;
  tiers: Tier[];
}

export interface BasketLine {
  productId: string;
  productType: string | null;
  collectionIds: string[];
  quantity: number;
  unitPrice: number;
}

export interface Basket {
  currency: string;
  lines: BasketLine[];
  shippingCost: number;
  customerId: string | null;
  customerGroupIds: string[];
}

/** One reduction applied: its amount, the part on each line it touched (by index) and on shipping. */
export interface Application {
  rule: Rule;
  amount: number;
  lines: Array<{ line_index: number; amount: number }>;
  shipping_amount: number;
}

export interface Evaluation {
  applications: Application[];
  /** Codes that do not apply, with why. */
  rejected: Array<{ rule: Rule; reason: NotApplicableReason }>;
  /** What each line has left after every reduction. */
  lineNet: number[];
  shippingNet: number;
  discount: number;
}

const lineTotal = (line: BasketLine) => line.quantity * line.unitPrice;

/** Whether the line matches the rule's product conditions (none set: every line matches). */
function matchesProducts(conditions: Conditions, line: BasketLine): boolean {
  const { product_ids: ids, collection_ids: collections, product_types: types } = conditions;
  if (ids.length === 0 && collections.length === 0 && types.length === 0) return true;
  return (
    ids.includes(line.productId) ||
    collections.some((id) => line.collectionIds.includes(id)) ||
    (line.productType !== null && types.some((type) => type.toLowerCase() === line.productType!.toLowerCase()))
  );
}

/** Why the rule's conditions do not hold for the basket, or null when they hold. */
export function unmetCondition(rule: Rule, basket: Basket, subtotal: number): NotApplicableReason | null {
  const c = rule.conditions;
  if (c.currency !== null && c.currency !== basket.currency) return 'currency';
  const customerListed = c.customer_ids.length > 0 || c.customer_group_ids.length > 0;
  if (
    customerListed &&
    !(
      (basket.customerId !== null && c.customer_ids.includes(basket.customerId)) ||
      c.customer_group_ids.some((id) => basket.customerGroupIds.includes(id))
    )
  )
    return 'customer';
  if (!basket.lines.some((line) => matchesProducts(c, line))) return 'products';
  if (c.min_subtotal !== null && subtotal < c.min_subtotal) return 'min_subtotal';
  return null;
}

/** The tier of a tiered rule for the subtotal: the highest min_subtotal reached, or undefined. */
const tierFor = (tiers: Tier[], subtotal: number) =>
  [...tiers].sort((a, b) => b.min_subtotal - a.min_subtotal).find((tier) => subtotal >= tier.min_subtotal);

/** Units the buy-X-get-Y rule reduces: per full group of buy + get matching units, the `get` cheapest ones. */
function buyXGetYParts(rule: Rule, basket: Basket, left: number[]): number[] {
  const deal = rule.buyXGetY!;
  const units = basket.lines
    .flatMap((line, index) =>
      matchesProducts(rule.conditions, line)
        ? Array.from({ length: line.quantity }, () => ({ index, price: line.unitPrice }))
        : [],
    )
    .sort((a, b) => a.price - b.price || b.index - a.index);
  const reduced = Math.floor(units.length / (deal.buy_quantity + deal.get_quantity)) * deal.get_quantity;
  const parts = basket.lines.map(() => 0);
  for (const unit of units.slice(0, reduced)) parts[unit.index] += percentOf(unit.price, deal.get_percentage);
  return parts.map((part, index) => Math.min(part, left[index]));
}

/** The reduction of one rule on each line given what the lines have left (before this rule). */
function lineParts(rule: Rule, basket: Basket, left: number[], subtotal: number): number[] {
  if (rule.type === 'buy_x_get_y') return buyXGetYParts(rule, basket, left);
  const tier = rule.type === 'tiered' ? tierFor(rule.tiers, subtotal) : undefined;
  const kind = tier ? tier.type : rule.type;
  const value = tier ? tier.value : rule.value;
  // Order-wide rules spread over every line; line rules only over the lines that match.
  const eligible = basket.lines.map((line, index) =>
    rule.target === 'order' || matchesProducts(rule.conditions, line) ? left[index] : 0,
  );
  if (kind === 'percentage') return percentPerLine(eligible, value);
  if (rule.target === 'lines') return eligible.map((capacity) => Math.min(capacity, value));
  return allocate(value, eligible);
}

/** Promotions by priority (highest first, then id), then codes in the order they were applied. */
export function stackingOrder(promotions: Rule[], codes: Rule[]): Rule[] {
  const byPriority = [...promotions].sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : 1));
  return [...byPriority, ...codes];
}

/**
 * Applies `rules` in stacking order to the basket: a rule whose conditions do not hold is skipped (a code is
 * rejected with the reason); a rule that is not combinable applies only when nothing applied before it, and once
 * applied nothing applies after it; a combinable rule applies only while every rule applied so far is combinable.
 * Each rule reduces what the lines (and shipping) have left after the rules before it, so nothing goes below 0.
 */
export function evaluate(basket: Basket, rules: Rule[]): Evaluation {
  const subtotal = basket.lines.reduce((sum, line) => sum + lineTotal(line), 0);
  const left = basket.lines.map(lineTotal);
  let shippingLeft = basket.shippingCost;
  const applications: Application[] = [];
  const rejected: Evaluation['rejected'] = [];
  for (const rule of rules) {
    const unmet = unmetCondition(rule, basket, subtotal);
    const tierMissing = rule.type === 'tiered' && !tierFor(rule.tiers, subtotal);
    const blocked =
      applications.length > 0 && (!rule.combinable || applications.some((applied) => !applied.rule.combinable));
    const reason: NotApplicableReason | null =
      unmet ?? (tierMissing ? 'min_subtotal' : null) ?? (blocked ? 'not_combinable' : null);
    if (reason) {
      if (rule.source === 'code') rejected.push({ rule, reason });
      continue;
    }
    if (rule.type === 'free_shipping') {
      const shipping = shippingLeft;
      shippingLeft = 0;
      applications.push({ rule, amount: shipping, lines: [], shipping_amount: shipping });
      continue;
    }
    const parts = lineParts(rule, basket, left, subtotal);
    const amount = parts.reduce((sum, part) => sum + part, 0);
    if (amount === 0 && rule.source === 'promotion') continue;
    parts.forEach((part, index) => (left[index] -= part));
    applications.push({
      rule,
      amount,
      lines: parts.flatMap((part, index) => (part > 0 ? [{ line_index: index, amount: part }] : [])),
      shipping_amount: 0,
    });
  }
  const discount = applications.reduce((sum, applied) => sum + applied.amount, 0);
  return { applications, rejected, lineNet: left, shippingNet: shippingLeft, discount };
}
