/**
 * Texts derived from rows (a resource's JSON), each kept with the version of the rows it was derived from (their
 * xmin, as read in the same statement), so a reader that reads the rows' current version knows whether the kept
 * text is still theirs: a text is served only for the version it was written from, whoever changed the rows
 * since. Bounded by the texts' total length, least recently used out.
 */
export class VersionedTexts {
  private readonly entries = new Map<string, { version: string; text: string }>();
  private length = 0;
  private counts = { hits: 0, misses: 0 };

  constructor(private readonly maxLength: number) {}

  /** Texts served from the cache since the process started (for the metrics). */
  get hits(): number {
    return this.counts.hits;
  }

  /** Texts asked for and not kept at that version since the process started (for the metrics). */
  get misses(): number {
    return this.counts.misses;
  }

  /** The text kept for `key` if it was derived from `version` of its rows, else undefined. */
  get(key: string, version: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry?.version !== version) {
      this.counts.misses++;
      return undefined;
    }
    this.entries.delete(key); // most recently used last
    this.entries.set(key, entry);
    this.counts.hits++;
    return entry.text;
  }

  /** Keeps `text`, derived from `version` of the rows behind `key`, in place of what was kept for `key`. */
  set(key: string, version: string, text: string): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.length -= old.text.length;
    }
    if (text.length > this.maxLength) return;
    this.entries.set(key, { version, text });
    this.length += text.length;
    for (const [oldest, entry] of this.entries) {
      if (this.length <= this.maxLength) break;
      this.entries.delete(oldest);
      this.length -= entry.text.length;
    }
  }
}
