import { invalidField } from '../../shared/errors.js';

type BoundField =
  | 'min_order_subtotal'
  | 'max_order_subtotal'
  | 'min_order_weight'
  | 'max_order_weight'
  | 'min_delivery_days'
  | 'max_delivery_days';

const PAIRS = [
  ['min_order_subtotal', 'max_order_subtotal'],
  ['min_order_weight', 'max_order_weight'],
  ['min_delivery_days', 'max_delivery_days'],
] as const satisfies ReadonlyArray<readonly [BoundField, BoundField]>;

/** A rate's bounds as the API names them (null: unbounded). */
export type RateBounds = Record<BoundField, number | null>;

/**
 * 400 unless min ≤ max for each pair of `bounds` (the rate as it would be stored). Names the field that
 * was sent: the maximum when both (or neither) were, the minimum when only it was.
 */
export function checkBounds(bounds: RateBounds, sent: ReadonlySet<string>): void {
  for (const [minField, maxField] of PAIRS) {
    const min = bounds[minField];
    const max = bounds[maxField];
    if (min === null || max === null || min <= max) continue;
    if (sent.has(minField) && !sent.has(maxField)) {
      throw invalidField(minField, `${minField} (${min}) must not be above ${maxField} (${max}).`);
    }
    throw invalidField(maxField, `${maxField} (${max}) must not be below ${minField} (${min}).`);
  }
}
