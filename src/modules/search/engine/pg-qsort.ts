/**
 * PostgreSQL's qsort_arg (src/include/lib/sort_template.h), step for step. It is not stable, so code that
 * keeps the first of equal elements after sorting (ts_rank's operand de-duplication) keeps the one PostgreSQL
 * keeps only if the elements move exactly as there: the same comparisons, swaps and partitions.
 */

/** Sorts `data[first, first + n)` in place with exactly the element moves of PostgreSQL's qsort_arg. */
export function pgQsort<T>(data: T[], first: number, n: number, compare: (a: T, b: T) => number): void {
  let a = first;
  for (;;) {
    if (n < 7) {
      insertionSort(data, a, n, compare);
      return;
    }
    if (isSorted(data, a, n, compare)) return;
    swap(data, a, pivotIndex(data, a, n, compare));
    let pa = a + 1;
    let pb = a + 1;
    let pc = a + n - 1;
    let pd = a + n - 1;
    for (;;) {
      let r: number;
      while (pb <= pc && (r = compare(data[pb], data[a])) <= 0) {
        if (r === 0) swap(data, pa++, pb);
        pb++;
      }
      while (pb <= pc && (r = compare(data[pc], data[a])) >= 0) {
        if (r === 0) swap(data, pc, pd--);
        pc--;
      }
      if (pb > pc) break;
      swap(data, pb++, pc--);
    }
    const pn = a + n;
    let d1 = Math.min(pa - a, pb - pa);
    swapRuns(data, a, pb - d1, d1);
    d1 = Math.min(pd - pc, pn - pd - 1);
    swapRuns(data, pb, pn - d1, d1);
    d1 = pb - pa;
    const d2 = pd - pc;
    if (d1 <= d2) {
      // Recurse on the left partition, then iterate on the right one.
      if (d1 > 1) pgQsort(data, a, d1, compare);
      if (d2 <= 1) return;
      a = pn - d2;
      n = d2;
    } else {
      // Recurse on the right partition, then iterate on the left one.
      if (d2 > 1) pgQsort(data, pn - d2, d2, compare);
      if (d1 <= 1) return;
      n = d1;
    }
  }
}

function insertionSort<T>(data: T[], a: number, n: number, compare: (a: T, b: T) => number): void {
  for (let pm = a + 1; pm < a + n; pm++)
    for (let pl = pm; pl > a && compare(data[pl - 1], data[pl]) > 0; pl--) swap(data, pl, pl - 1);
}

function isSorted<T>(data: T[], a: number, n: number, compare: (a: T, b: T) => number): boolean {
  for (let pm = a + 1; pm < a + n; pm++) if (compare(data[pm - 1], data[pm]) > 0) return false;
  return true;
}

/** The middle element, or the median of three (of three medians of three above 40 elements). */
function pivotIndex<T>(data: T[], a: number, n: number, compare: (a: T, b: T) => number): number {
  let pm = a + Math.floor(n / 2);
  if (n > 7) {
    let pl = a;
    let pn = a + n - 1;
    if (n > 40) {
      const d = Math.floor(n / 8);
      pl = med3(data, pl, pl + d, pl + 2 * d, compare);
      pm = med3(data, pm - d, pm, pm + d, compare);
      pn = med3(data, pn - 2 * d, pn - d, pn, compare);
    }
    pm = med3(data, pl, pm, pn, compare);
  }
  return pm;
}

function med3<T>(data: T[], a: number, b: number, c: number, compare: (a: T, b: T) => number): number {
  return compare(data[a], data[b]) < 0
    ? compare(data[b], data[c]) < 0
      ? b
      : compare(data[a], data[c]) < 0
        ? c
        : a
    : compare(data[b], data[c]) > 0
      ? b
      : compare(data[a], data[c]) < 0
        ? a
        : c;
}

function swap<T>(data: T[], i: number, j: number): void {
  const t = data[i];
  data[i] = data[j];
  data[j] = t;
}

function swapRuns<T>(data: T[], i: number, j: number, count: number): void {
  for (let k = 0; k < count; k++) swap(data, i + k, j + k);
}
