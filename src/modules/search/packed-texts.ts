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
    const starts = new Int32Array(texts.length + 1);
    for (let i = 0; i < texts.length; i++) starts[i + 1] = starts[i] + texts[i].length;
    return new PackedTexts(texts.join(''), starts);
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
