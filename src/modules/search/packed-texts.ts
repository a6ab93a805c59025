/**
 * Many texts held as one string and where each starts: one object for the garbage collector and one header
 * instead of one string per text (an index of 100,000 products keeps its ids, titles and handles so, about 40 %
 * of their memory as arrays of strings). A text read is a slice of the whole.
 */
export class PackedTexts {
  private constructor(
    private readonly joined: string,
    private readonly starts: Int32Array,
  ) {}

  /** `texts` packed, in their order. */
  static of(texts: readonly string[]): PackedTexts {
    const packing = PackedTexts.packing();
    for (const text of texts) packing.push(text);
    return packing.done();
  }

  /**
   * Texts packed as they come (push, then done): every PIECE_TEXTS of them are joined, so a build holds a few
   * pieces rather than each text until the end.
   */
  static packing(): { push(text: string): void; done(): PackedTexts } {
    const pieces: string[] = [];
    let pending: string[] = [];
    const starts = [0];
    return {
      push(text) {
        pending.push(text);
        starts.push(starts[starts.length - 1] + text.length);
        if (pending.length === PIECE_TEXTS) {
          pieces.push(pending.join(''));
          pending = [];
        }
      },
      done: () => new PackedTexts(pieces.join('') + pending.join(''), Int32Array.from(starts)),
    };
  }

  get length(): number {
    return this.starts.length - 1;
  }

  /** Text `i` (0 <= i < length). */
  at(i: number): string {
    return this.joined.slice(this.starts[i], this.starts[i + 1]);
  }

  /** What they take in memory: the joined text (one or two bytes a character) and the starts. */
  get bytes(): number {
    return this.joined.length * 2 + this.starts.byteLength;
  }
}

const PIECE_TEXTS = 1_000;
