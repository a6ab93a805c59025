/**
 * A product of the index as the matcher and ranker read it (the port of PostgreSQL's `@@` and `ts_rank` in engine/
 * reads documents through TsDoc): its entries found through the postings, by cursors moving along each operand's
 * lexemes while products are visited in ascending order.
 */
import type { TsDoc, TsOperand, TsQuery } from '../engine/pg-tsquery.js';
import type { ProductIndex } from '../product-index.js';
import { lowerBound } from '../suggest-index.text.js';
import { lexemePostingsOf, mergedPostings } from './kept-sets.js';
import { lowerBoundFrom, lowerBoundOf } from './sorted-sets.js';

/** An operand's lexemes (positions in the lexicon) and, for at most CURSOR_LEXEMES of them, a cursor per lexeme into its postings. */
interface OperandLexemes {
  low: number;
  high: number;
  cursors: Int32Array | null;
  /** The pass the cursors belong to (IndexDoc.pass); stale cursors start again. */
  pass: number;
}

const CURSOR_LEXEMES = 16;

/**
 * A product of the index as the matcher and ranker read it, its operands resolved to lexeme ranges once per query.
 * Its entries are postings: products visited in ascending order find an operand's entries by moving a cursor along
 * each of its lexemes' postings (sequential reads), and read their positions, which lie in posting order.
 */
export class IndexDoc implements TsDoc {
  private doc = -1;
  private pass = 0;
  private readonly ranges = new Map<TsOperand, OperandLexemes>();
  found = new Int32Array(CURSOR_LEXEMES);

  readonly positionValues: Uint16Array;

  constructor(readonly index: ProductIndex) {
    this.positionValues = index.positions;
  }

  /** Resolves the operands of `query` (the lexemes each one matches: one, or a prefix's range). */
  prepare(query: TsQuery): void {
    for (const operand of query.operands) {
      if (this.ranges.has(operand)) continue;
      const low = lowerBound(this.index.lexemes, operand.lexeme);
      let high = low;
      if (operand.prefix) {
        while (high < this.index.lexemes.length && this.index.lexemes[high].startsWith(operand.lexeme)) high++;
      } else if (high < this.index.lexemes.length && this.index.lexemes[high] === operand.lexeme) high++;
      const cursors = high - low <= CURSOR_LEXEMES ? new Int32Array(high - low) : null;
      this.ranges.set(operand, { low, high, cursors, pass: -1 });
    }
  }

  /** The lexemes (positions in the lexicon) the operand matches. */
  range(operand: TsOperand): { low: number; high: number } {
    return this.ranges.get(operand)!;
  }

  /**
   * The products holding any lexeme of the operand with a position of an allowed `weight` (the operand's; 0: any),
   * ascending; kept per index, so operands with the same lexemes and weights (the english and exact forms often
   * agree) share one array.
   */
  postings(operand: TsOperand, weight = operand.weight): Int32Array {
    const { low, high } = this.ranges.get(operand)!;
    return weight === 0 && high - low <= 1
      ? lexemePostingsOf(this.index, low, high)
      : mergedPostings(this.index, low, high, weight);
  }

  /** Moves to product `doc`; a product before the last one starts a new pass (every cursor from the start). */
  at(doc: number): this {
    if (doc < this.doc) this.pass++;
    this.doc = doc;
    return this;
  }

  get size(): number {
    return this.index.docEntries[this.doc + 1] - this.index.docEntries[this.doc];
  }

  find(operand: TsOperand): number {
    const lexemes = this.ranges.get(operand)!;
    const { low, high, cursors } = lexemes;
    if (low === high) return 0;
    if (cursors === null) return this.findInEntries(low, high);
    const { lexemePostings, postingDocs } = this.index;
    if (lexemes.pass !== this.pass) {
      for (let i = 0; i < cursors.length; i++) cursors[i] = lexemePostings[low + i];
      lexemes.pass = this.pass;
    }
    const doc = this.doc;
    let count = 0;
    for (let i = 0; i < cursors.length; i++) {
      const end = lexemePostings[low + i + 1];
      let p = cursors[i];
      if (p < end && postingDocs[p] < doc) p = lowerBoundFrom(postingDocs, doc, p, end);
      cursors[i] = p;
      if (p < end && postingDocs[p] === doc) this.found[count++] = p;
    }
    return count;
  }

  /**
   * find for an operand of many lexemes (a short prefix): the product's entries in range, by binary search, and
   * each one's posting by a binary search of its lexeme's postings.
   */
  private findInEntries(low: number, high: number): number {
    const { docEntries, entryLexemes, lexemePostings, postingDocs } = this.index;
    const last = docEntries[this.doc + 1];
    let [a, b] = [docEntries[this.doc], last];
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (entryLexemes[mid] < low) a = mid + 1;
      else b = mid;
    }
    let count = 0;
    for (let e = a; e < last && entryLexemes[e] < high; e++) {
      if (count === this.found.length) {
        const grown = new Int32Array(Math.max(16, this.found.length * 2));
        grown.set(this.found);
        this.found = grown;
      }
      const lexeme = entryLexemes[e];
      this.found[count++] = lowerBoundOf(postingDocs, this.doc, lexemePostings[lexeme], lexemePostings[lexeme + 1]);
    }
    return count;
  }

  positionsStart(posting: number): number {
    return this.index.postingPositions[posting];
  }

  positionsEnd(posting: number): number {
    return this.index.postingPositions[posting + 1];
  }
}
