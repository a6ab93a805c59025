/**
 * PostgreSQL 18's tsquery as data, and `tsvector @@ tsquery` (ts_match_vq: TS_execute and TS_phrase_execute
 * in src/backend/utils/adt/tsvector_op.c) ported step for step, so an in-process index answers the same rows.
 */
import { compareCodePoints } from '../suggest-index.text.js';

/** One operand of a tsquery, as stored. */
export interface TsOperand {
  kind: 'val';
  lexeme: string;
  prefix: boolean;
  /** PostgreSQL's bitmask: 0 = any weight; 1 << 3 = A, 1 << 2 = B, 1 << 1 = C, 1 << 0 = D. */
  weight: number;
}
/** An operator; 'not' has only `right` (its one argument), `distance` is the phrase distance (0 otherwise). */
export interface TsOperator {
  kind: 'not' | 'and' | 'or' | 'phrase';
  distance: number;
  left?: TsNode;
  right: TsNode;
}
export type TsNode = TsOperand | TsOperator;
export interface TsQuery {
  /** null for an empty tsquery. */
  root: TsNode | null;
  /** PostgreSQL's item array, in the order tsquerysend writes it. */
  items: TsNode[];
  /** The operands (QI_VAL items) in array order. */
  operands: TsOperand[];
}
/**
 * A document (one tsvector) as the matcher and ranker see it. Entries are numbers of the document's own choosing
 * (an index, or an array's position), each with a list of positions.
 */
export interface TsDoc {
  /** Number of entries (distinct lexemes) of the tsvector. */
  readonly size: number;
  /**
   * How many entries equal the operand's lexeme, or (prefix operand) start with it; they are `found[0..count)`, in
   * the tsvector's order, until the next call.
   */
  find(operand: TsOperand): number;
  readonly found: ArrayLike<number>;
  /**
   * Entry e's WordEntryPos values (weight 3 = A ... 0 = D in the top 2 bits, position in the low 14; none without
   * positions) as `positionValues[positionsStart(e)..positionsEnd(e))`: the matcher and ranker read them without a
   * view per entry.
   */
  readonly positionValues: ArrayLike<number>;
  positionsStart(entry: number): number;
  positionsEnd(entry: number): number;
}

const QI_VAL = 1;
const QI_OPR = 2;
const OPERATORS = [undefined, 'not', 'and', 'or', 'phrase'] as const;

/** Reads tsquerysend's bytes: int32 size, then per item (prefix order: operator, right subtree, left subtree) its fields. */
export function decodeTsQuery(bytes: Uint8Array): TsQuery {
  const reader = new ByteReader(bytes);
  const size = reader.int32();
  const items: TsNode[] = [];
  const operands: TsOperand[] = [];
  for (let i = 0; i < size; i++) {
    const type = reader.uint8();
    if (type === QI_VAL) {
      const weight = reader.uint8();
      const prefix = reader.uint8() !== 0;
      const operand: TsOperand = { kind: 'val', lexeme: reader.cstring(), prefix, weight };
      items.push(operand);
      operands.push(operand);
    } else if (type === QI_OPR) {
      const kind = OPERATORS[reader.uint8()];
      if (!kind) throw new Error('invalid tsquery: unrecognized operator');
      const distance = kind === 'phrase' ? reader.int16() : 0;
      items.push({ kind, distance, right: undefined as unknown as TsNode });
    } else throw new Error(`invalid tsquery: unrecognized item type ${type}`);
  }
  if (size === 0) return { root: null, items, operands };
  const end = linkOperands(items, 0);
  if (end !== size) throw new Error('invalid tsquery: malformed operand tree');
  return { root: items[0], items, operands };
}

/** findoprnd: the right argument follows its operator, the left one follows the right subtree; returns the next index. */
function linkOperands(items: TsNode[], at: number): number {
  const item = items[at];
  if (!item) throw new Error('invalid tsquery: missing operand');
  if (item.kind === 'val') return at + 1;
  item.right = items[at + 1];
  const afterRight = linkOperands(items, at + 1);
  if (item.kind === 'not') return afterRight;
  item.left = items[afterRight];
  return linkOperands(items, afterRight);
}

/** Reads tsvectorsend's bytes: int32 count, then per lexeme its null-terminated text, uint16 count and uint16 positions. */
export function decodeTsVector(bytes: Uint8Array): { lexemes: string[]; positions: Uint16Array[] } {
  const reader = new ByteReader(bytes);
  const count = reader.int32();
  const lexemes: string[] = [];
  const positions: Uint16Array[] = [];
  for (let i = 0; i < count; i++) {
    lexemes.push(reader.cstring());
    const npos = reader.uint16();
    const pos = new Uint16Array(npos);
    for (let j = 0; j < npos; j++) pos[j] = reader.uint16();
    positions.push(pos);
  }
  return { lexemes, positions };
}

class ByteReader {
  private at = 0;
  private readonly view: DataView;
  private static readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  uint8(): number {
    return this.view.getUint8(this.at++);
  }
  uint16(): number {
    const v = this.view.getUint16(this.at);
    this.at += 2;
    return v;
  }
  int16(): number {
    const v = this.view.getInt16(this.at);
    this.at += 2;
    return v;
  }
  int32(): number {
    const v = this.view.getInt32(this.at);
    this.at += 4;
    return v;
  }
  cstring(): string {
    const end = this.bytes.indexOf(0, this.at);
    if (end < 0) throw new Error('unterminated string');
    const text = ByteReader.utf8.decode(this.bytes.subarray(this.at, end));
    this.at = end + 1;
    return text;
  }
}

/** A TsDoc over sorted lexemes (PostgreSQL's order: UTF-8 bytes, then length), found by binary search as tsvector_op.c does. */
export function arrayDoc(v: { lexemes: string[]; positions: Uint16Array[] }): TsDoc {
  const { lexemes, positions } = v;
  const starts = [0];
  for (const list of positions) starts.push(starts.at(-1)! + list.length);
  const positionValues = new Uint16Array(starts.at(-1)!);
  positions.forEach((list, i) => positionValues.set(list, starts[i]));
  const found: number[] = [];
  const range = (operand: TsOperand): [number, number] => {
    let low = 0;
    let high = lexemes.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const c = compareCodePoints(operand.lexeme, lexemes[mid]);
      if (c === 0) {
        if (!operand.prefix) return [mid, mid + 1];
        low = high = mid;
      } else if (c > 0) low = mid + 1;
      else high = mid;
    }
    if (!operand.prefix) return [0, 0];
    let end = low;
    while (end < lexemes.length && lexemes[end].startsWith(operand.lexeme)) end++;
    return [low, end];
  };
  return {
    size: lexemes.length,
    found,
    find(operand) {
      const [start, end] = range(operand);
      for (let e = start; e < end; e++) found[e - start] = e;
      return end - start;
    },
    positionValues,
    positionsStart: (entry) => starts[entry],
    positionsEnd: (entry) => starts[entry + 1],
  };
}

const NO = 0;
const YES = 1;
const MAYBE = 2;
type Ternary = typeof NO | typeof YES | typeof MAYBE;

/** Whether the document matches the query, exactly as `doc @@ query` answers in PostgreSQL 18 (an empty query matches nothing). */
export function tsMatches(query: TsQuery, doc: TsDoc): boolean {
  if (query.root === null) return false;
  return execute(query.root, doc);
}

/** TS_execute_recurse above any phrase operator (no positions needed; a phrase's MAYBE counts as no). */
function execute(node: TsNode, doc: TsDoc): boolean {
  switch (node.kind) {
    case 'val':
      return operandPresent(node, doc);
    case 'not':
      return !execute(node.right, doc);
    case 'and':
      return execute(node.left!, doc) && execute(node.right, doc);
    case 'or':
      return execute(node.left!, doc) || execute(node.right, doc);
    case 'phrase': {
      // Phrases above phrases do not nest, so each topmost one starts with the whole pool.
      poolTop = 0;
      return phraseExecute(node, doc, null) === YES;
    }
  }
}

/** checkcondition_str without position data: some matching entry has no positions or a position of an allowed weight. */
function operandPresent(operand: TsOperand, doc: TsDoc): boolean {
  const count = doc.find(operand);
  const values = doc.positionValues;
  for (let i = 0; i < count; i++) {
    const e = doc.found[i];
    const [from, to] = [doc.positionsStart(e), doc.positionsEnd(e)];
    if (from === to || operand.weight === 0) return true;
    for (let j = from; j < to; j++) if (operand.weight & (1 << (values[j] >> 14))) return true;
  }
  return false;
}

/** ExecPhraseData: sorted unique positions (the match's right end), whether they are excluded, and the match width. */
class PhraseData {
  pos = new Uint16Array(16);
  npos = 0;
  negate = false;
  width = 0;
  reset(): void {
    this.npos = 0;
    this.negate = false;
    this.width = 0;
  }
  reserve(n: number): void {
    if (this.pos.length < n) this.pos = new Uint16Array(Math.max(n, this.pos.length * 2));
  }
}

// Ldata/Rdata of the phrase recursion: taken in stack order and given back when the call returns, so no call allocates.
const pool: PhraseData[] = [];
let poolTop = 0;

function takeData(): PhraseData {
  if (poolTop === pool.length) pool.push(new PhraseData());
  const data = pool[poolTop++];
  data.reset();
  return data;
}

/** TS_phrase_execute: the match at or below a phrase operator, with positions in `data` (null only at the topmost phrase). */
function phraseExecute(node: TsNode, doc: TsDoc, data: PhraseData | null): Ternary {
  switch (node.kind) {
    case 'val':
      return operandPositions(node, doc, data!);
    case 'not':
      return phraseNot(node, doc, data!);
    case 'and':
    case 'phrase':
      return phraseAnd(node, doc, data);
    case 'or':
      return phraseOr(node, doc, data!);
  }
}

function phraseNot(node: TsOperator, doc: TsDoc, data: PhraseData): Ternary {
  switch (phraseExecute(node.right, doc, data)) {
    case NO:
      data.negate = true;
      return YES;
    case YES:
      if (data.npos > 0) {
        data.negate = !data.negate;
        return YES;
      }
      if (data.negate) data.negate = false;
      return NO;
    default:
      return MAYBE;
  }
}

function phraseAnd(node: TsOperator, doc: TsDoc, data: PhraseData | null): Ternary {
  const L = takeData();
  const R = takeData();
  const lmatch = phraseExecute(node.left!, doc, L);
  if (lmatch === NO) return NO;
  const rmatch = phraseExecute(node.right, doc, R);
  if (rmatch === NO) return NO;
  if (lmatch === MAYBE || rmatch === MAYBE) return MAYBE;
  let Loffset: number;
  let Roffset: number;
  if (node.kind === 'phrase') {
    Loffset = node.distance + R.width;
    Roffset = 0;
    if (data) data.width = node.distance + L.width + R.width;
  } else {
    const maxwidth = Math.max(L.width, R.width);
    Loffset = maxwidth - L.width;
    Roffset = maxwidth - R.width;
    if (data) data.width = maxwidth;
  }
  if (L.negate && R.negate) {
    phraseOutput(data, L, R, BOTH | L_ONLY | R_ONLY, Loffset, Roffset, L.npos + R.npos);
    if (data) data.negate = true;
    return YES;
  }
  if (L.negate) return phraseOutput(data, L, R, R_ONLY, Loffset, Roffset, R.npos);
  if (R.negate) return phraseOutput(data, L, R, L_ONLY, Loffset, Roffset, L.npos);
  return phraseOutput(data, L, R, BOTH, Loffset, Roffset, Math.min(L.npos, R.npos));
}

function phraseOr(node: TsOperator, doc: TsDoc, data: PhraseData): Ternary {
  const L = takeData();
  const R = takeData();
  const lmatch = phraseExecute(node.left!, doc, L);
  const rmatch = phraseExecute(node.right, doc, R);
  if (lmatch === NO && rmatch === NO) return NO;
  if (lmatch === MAYBE || rmatch === MAYBE) return MAYBE;
  if (lmatch === NO) L.width = 0;
  if (rmatch === NO) R.width = 0;
  const maxwidth = Math.max(L.width, R.width);
  const Loffset = maxwidth - L.width;
  const Roffset = maxwidth - R.width;
  data.width = maxwidth;
  if (L.negate && R.negate) phraseOutput(data, L, R, BOTH, Loffset, Roffset, Math.min(L.npos, R.npos));
  else if (L.negate) phraseOutput(data, L, R, L_ONLY, Loffset, Roffset, L.npos);
  else if (R.negate) phraseOutput(data, L, R, R_ONLY, Loffset, Roffset, R.npos);
  else return phraseOutput(data, L, R, BOTH | L_ONLY | R_ONLY, Loffset, Roffset, L.npos + R.npos);
  data.negate = true;
  return YES;
}

const L_ONLY = 1;
const R_ONLY = 2;
const BOTH = 4;

/** TS_phrase_output: merges the two sorted position lists as `emit` says; without `data`, whether anything would be emitted. */
function phraseOutput(
  data: PhraseData | null,
  L: PhraseData,
  R: PhraseData,
  emit: number,
  Loffset: number,
  Roffset: number,
  maxNpos: number,
): Ternary {
  let li = 0;
  let ri = 0;
  if (data) data.reserve(maxNpos);
  while (li < L.npos || ri < R.npos) {
    let lpos: number;
    let rpos: number;
    if (li < L.npos) lpos = (L.pos[li] & 0x3fff) + Loffset;
    else if (!(emit & R_ONLY)) break;
    else lpos = Number.MAX_SAFE_INTEGER;
    if (ri < R.npos) rpos = (R.pos[ri] & 0x3fff) + Roffset;
    else if (!(emit & L_ONLY)) break;
    else rpos = Number.MAX_SAFE_INTEGER;
    let out = 0;
    if (lpos < rpos) {
      if (emit & L_ONLY) out = lpos;
      li++;
    } else if (lpos === rpos) {
      if (emit & BOTH) out = rpos;
      li++;
      ri++;
    } else {
      if (emit & R_ONLY) out = rpos;
      ri++;
    }
    if (out > 0) {
      if (!data) return YES;
      // Stored into a uint16 WordEntryPos as PostgreSQL does (read back through WEP_GETPOS).
      data.pos[data.npos++] = out;
    }
  }
  return data && data.npos > 0 ? YES : NO;
}

/** checkcondition_str with position data: the operand's positions (of allowed weights), MAYBE for an entry without positions. */
function operandPositions(operand: TsOperand, doc: TsDoc, data: PhraseData): Ternary {
  const count = doc.find(operand);
  if (count === 0) return NO;
  if (!operand.prefix) return entryPositions(operand, doc, doc.found[0], data, 0);
  let npos = 0;
  for (let i = 0; i < count; i++) {
    const e = doc.found[i];
    if (doc.positionsStart(e) === doc.positionsEnd(e)) {
      data.npos = 0;
      return MAYBE;
    }
    entryPositions(operand, doc, e, data, npos);
    npos = data.npos;
  }
  if (npos === 0) return NO;
  data.npos = sortUnique(data.pos, npos);
  return YES;
}

/** checkclass_str: appends the entry's positions (of allowed weights) to data.pos from index `from`; data.npos ends after them. */
function entryPositions(operand: TsOperand, doc: TsDoc, entry: number, data: PhraseData, from: number): Ternary {
  const [start, end] = [doc.positionsStart(entry), doc.positionsEnd(entry)];
  if (start === end) return MAYBE;
  data.reserve(from + end - start);
  const values = doc.positionValues;
  let n = from;
  for (let j = start; j < end; j++)
    if (operand.weight === 0 || operand.weight & (1 << (values[j] >> 14))) data.pos[n++] = values[j] & 0x3fff;
  data.npos = n;
  return n > from ? YES : NO;
}

/** Sorts the first n positions and drops repeats (qsort + qunique by position); returns the new count. */
function sortUnique(pos: Uint16Array, n: number): number {
  if (n > 1) {
    if (n <= 32) {
      for (let i = 1; i < n; i++) {
        const v = pos[i];
        let j = i - 1;
        for (; j >= 0 && pos[j] > v; j--) pos[j + 1] = pos[j];
        pos[j + 1] = v;
      }
    } else pos.subarray(0, n).sort();
  }
  let out = n > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) if (pos[i] !== pos[out - 1]) pos[out++] = pos[i];
  return out;
}
