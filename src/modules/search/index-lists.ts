/** Growable typed lists and text tables a product index is built with (product-index.ts). */

/** A list of distinct texts with their positions, for fields many products share (types, tags, collection ids). */
export class TextTable {
  readonly texts: string[] = [];
  private readonly positions = new Map<string, number>();

  positionOf(text: string): number {
    let position = this.positions.get(text);
    if (position === undefined) {
      position = this.texts.length;
      this.positions.set(text, position);
      this.texts.push(text);
    }
    return position;
  }
}

/**
 * A growable list of integers in a typed array (Int32Array or Uint16Array), made with the capacity it will need
 * when that is known: a build of 100,000 products then allocates each list once (growing and copying leaves
 * buffers the collector frees only later, which raised the process's peak memory by tens of MB).
 */
export class GrowableList<A extends Int32Array | Uint16Array> {
  length = 0;
  protected data: A;

  constructor(
    protected make: (size: number) => A,
    capacity: number,
  ) {
    this.data = make(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = this.make(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  /** The values, exactly sized; the list lets its own buffer go (so a build holds one copy at a time). */
  take(): A {
    const values = this.length === this.data.length ? this.data : (this.data.slice(0, this.length) as A);
    this.data = this.make(0);
    return values;
  }

  /** The values as a view of the list's buffer (no copy: for values a build reads and drops). */
  view(): A {
    return this.data.subarray(0, this.length) as A;
  }
}

/**
 * A list of lexeme numbers in 16 bits while they fit, widened to 32 bits (once) by the first that does not: a
 * lexicon of up to 65,536 lexemes (a catalogue's words) costs two bytes an entry.
 */
export class LexemeList extends GrowableList<Uint16Array | Int32Array> {
  constructor(capacity: number) {
    super((size) => new Uint16Array(size), capacity);
  }

  override push(value: number): void {
    if (value > 0xffff && this.data instanceof Uint16Array) {
      this.make = (size) => new Int32Array(size);
      this.data = Int32Array.from(this.data);
    }
    super.push(value);
  }
}

export type IntList = GrowableList<Int32Array>;
export const intList = (capacity = 1024): IntList => new GrowableList((size) => new Int32Array(size), capacity);
export const uint16List = (capacity: number) => new GrowableList((size) => new Uint16Array(size), capacity);
