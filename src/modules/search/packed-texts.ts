/**
 * Many texts held as their UTF-8 bytes in one buffer and where each starts: one object for the garbage collector
 * and a byte a character (for ASCII) instead of one string per text (an index of 100,000 products keeps its ids,
 * titles and handles so, about 40 % of their memory as arrays of strings). A text read is decoded afresh, so an
 * answer kept in a cache holds its own strings, never the buffer of an index that has since been replaced. For
 * texts read from the database (valid UTF-8, so without lone surrogates, which UTF-8 cannot carry).
 */
export class PackedTexts {
  private constructor(
    private readonly utf8: Buffer,
    private readonly starts: Int32Array,
  ) {}

  /** `texts` packed, in their order. */
  static of(texts: readonly string[]): PackedTexts {
    const packing = PackedTexts.packing();
    for (const text of texts) packing.push(text);
    return packing.done();
  }

  /**
   * Texts packed as they come (push, then done): every PIECE_TEXTS of them are encoded together, so a build holds
   * a few buffers rather than each text until the end.
   */
  static packing(): { push(text: string): void; done(): PackedTexts } {
    const pieces: Buffer[] = [];
    let pending: string[] = [];
    const starts = [0];
    return {
      push(text) {
        pending.push(text);
        starts.push(starts[starts.length - 1] + Buffer.byteLength(text));
        if (pending.length === PIECE_TEXTS) {
          pieces.push(Buffer.from(pending.join('')));
          pending = [];
        }
      },
      done: () => new PackedTexts(Buffer.concat([...pieces, Buffer.from(pending.join(''))]), Int32Array.from(starts)),
    };
  }

  get length(): number {
    return this.starts.length - 1;
  }

  /** Text `i` (0 <= i < length), as a string of its own. */
  at(i: number): string {
    return this.utf8.toString('utf8', this.starts[i], this.starts[i + 1]);
  }

  /** What they take in memory: the bytes and the starts. */
  get bytes(): number {
    return this.utf8.length + this.starts.byteLength;
  }
}

const PIECE_TEXTS = 1_000;
