/**
 * Sets of products as ascending Int32Arrays of index positions: union, intersection (galloping through a much
 * longer list), difference, membership by cursor or binary search, and the one buffer sets are computed into. Pure
 * functions of their arguments; nothing here knows an index.
 */

/** The buffer sets are computed into (collectedSet), grown to the largest bound asked. */
let setBuffer = new Int32Array(0);

/**
 * The first values `fill` writes to a buffer of at least `size` (it answers how many), copied out at their size: a set
 * allocates its own size only, not a buffer at its bound too (the long tail's searches allocated 60 % of their
 * typed arrays so). One buffer serves every set, as `fill` runs synchronously and computes no other set.
 */
export function collectedSet(size: number, fill: (out: Int32Array) => number): Int32Array {
  if (setBuffer.length < size) setBuffer = new Int32Array(size);
  return setBuffer.slice(0, fill(setBuffer));
}

/** `sorted` without repeats, in place (the prefix of distinct values). */
export function unique(sorted: Int32Array): Int32Array {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.subarray(0, n);
}

/** The products in both ascending lists: merged when their sizes are alike, the shorter one's looked up in the longer (galloping) when not. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (a === b) return a;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return collectedSet(short.length, (out) => {
    let n = 0;
    if (short.length * SKEWED < long.length) {
      for (let i = 0, j = 0; i < short.length && j < long.length; i++) {
        j = lowerBoundFrom(long, short[i], j);
        if (j < long.length && long[j] === short[i]) out[n++] = short[i];
      }
      return n;
    }
    let [i, j] = [0, 0];
    while (i < short.length && j < long.length) {
      if (short[i] < long[j]) i++;
      else if (short[i] > long[j]) j++;
      else {
        out[n++] = short[i];
        i++;
        j++;
      }
    }
    return n;
  });
}

/** Lists this many times longer than the other are searched rather than merged (a search costs a few steps per product). */
const SKEWED = 8;

/** The products in either ascending list, ascending. */
export function union(a: Int32Array, b: Int32Array): Int32Array {
  if (a === b) return a;
  return collectedSet(a.length + b.length, (out) => {
    let [i, j, n] = [0, 0, 0];
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i] < b[j])) out[n++] = a[i++];
      else if (i >= a.length || b[j] < a[i]) out[n++] = b[j++];
      else {
        out[n++] = a[i++];
        j++;
      }
    }
    return n;
  });
}

/** The products of the ascending `a` not in the ascending `b`. */
export function difference(a: Int32Array, b: Int32Array): Int32Array {
  return collectedSet(a.length, (out) => {
    let [j, n] = [0, 0];
    for (let i = 0; i < a.length; i++) {
      while (j < b.length && b[j] < a[i]) j++;
      if (j >= b.length || b[j] !== a[i]) out[n++] = a[i];
    }
    return n;
  });
}

/** The positions 0..count-1. */
export function everyProduct(count: number): Int32Array {
  const docs = new Int32Array(count);
  for (let i = 0; i < count; i++) docs[i] = i;
  return docs;
}

/** `values(i)` for i in 0..count-1, as an Int32Array (a loop: TypedArray.from with a map function is slow). */
export function int32Of(count: number, values: (i: number) => number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = values(i);
  return out;
}

/** Membership in an ascending list of products, asked in ascending order (a cursor, no per-product array). */
export class Ascending {
  private at = 0;

  constructor(private readonly docs: Int32Array) {}

  has(position: number): boolean {
    while (this.at < this.docs.length && this.docs[this.at] < position) this.at++;
    return this.at < this.docs.length && this.docs[this.at] === position;
  }
}

/** The first index of the ascending `docs` in [low, high) whose product is at least `position` (binary search; high when none). */
export function lowerBoundOf(docs: Int32Array, position: number, low = 0, high = docs.length): number {
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (docs[mid] < position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether the ascending `docs` hold `position`. */
export function holds(docs: Int32Array, position: number): boolean {
  const at = lowerBoundOf(docs, position);
  return at < docs.length && docs[at] === position;
}

/** Whether two ascending lists have a product in common. */
export function sharesAny(a: Int32Array, b: Int32Array): boolean {
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i = lowerBoundFrom(a, b[j], i + 1);
    else if (a[i] > b[j]) j = lowerBoundFrom(b, a[i], j + 1);
    else return true;
  }
  return false;
}

/** lowerBoundOf in [from, end), galloping first: a few steps when the product is near, a binary search when it is far. */
export function lowerBoundFrom(docs: Int32Array, position: number, from: number, end = docs.length): number {
  let step = 1;
  let low = from;
  while (low + step < end && docs[low + step] < position) {
    low += step;
    step *= 2;
  }
  return lowerBoundOf(docs, position, low, Math.min(low + step, end));
}
