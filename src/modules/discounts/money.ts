/**
 * The money arithmetic of discounts: pure functions over integer minor units (openapi.yaml, the discounts tag,
 * "Rounding"). Percentages are taken per line and rounded half-up; an amount spread over lines goes in proportion
 * to what each line has left, rounded down, and the minor units left over go one each to the largest lines; no
 * line ever goes below 0.
 */

/** `amount x percent / 100` rounded half-up to the minor unit (percent 0-100, amount non-negative). */
export function percentOf(amount: number, percent: number): number {
  return Math.floor((amount * percent * 2 + 100) / 200);
}

/**
 * `amount` split over lines holding `capacities` (what each line has left): each line's part is in proportion to
 * its capacity, rounded down; the units left over go one each to the largest capacities (the earlier line on a
 * tie). The parts add up to `min(amount, sum of capacities)` and none exceeds its line's capacity.
 */
export function allocate(amount: number, capacities: number[]): number[] {
  const total = capacities.reduce((sum, capacity) => sum + capacity, 0);
  if (amount <= 0 || total === 0) return capacities.map(() => 0);
  if (amount >= total) return [...capacities];
  // BigInt: amount x capacity can pass 2^53 for large amounts.
  const parts = capacities.map((capacity) => Number((BigInt(amount) * BigInt(capacity)) / BigInt(total)));
  let left = amount - parts.reduce((sum, part) => sum + part, 0);
  const bySize = capacities.map((capacity, index) => ({ capacity, index })).sort((a, b) => b.capacity - a.capacity);
  for (const { index } of bySize) {
    if (left === 0) break;
    if (parts[index] < capacities[index]) {
      parts[index] += 1;
      left -= 1;
    }
  }
  return parts;
}

/** A percentage taken off each line on its own (half-up per line), never more than the line has left. */
export function percentPerLine(capacities: number[], percent: number): number[] {
  return capacities.map((capacity) => Math.min(capacity, percentOf(capacity, percent)));
}

/**
 * What a refund of `units` of a line of `quantity` units pays back of `paid` (the line's total less its discounts):
 * the paid amount per unit rounded down, the units left over by the rounding on the line's last units, so refunding
 * every unit in any number of steps pays back exactly `paid`.
 */
export function paidForUnits(paid: number, quantity: number, alreadyRefundedUnits: number, units: number): number {
  // floor(paid x n / quantity) is paid itself at n = quantity: the rounding's leftovers fall on the last units.
  const upTo = (n: number) => Number((BigInt(paid) * BigInt(n)) / BigInt(quantity));
  return upTo(Math.min(quantity, alreadyRefundedUnits + units)) - upTo(alreadyRefundedUnits);
}
