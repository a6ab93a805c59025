import { LRUCache } from 'lru-cache';

/**
 * Texts derived from rows (a resource's JSON), each kept with the version of the rows it was derived from (their
 * xmin, as read in the same statement), so a reader that reads the rows' current version knows whether the kept
 * text is still theirs: a text is served only for the version it was written from, whoever changed the rows
 * since. Bounded by the texts' total length (lru-cache's size accounting), least recently used out.
 */
export class VersionedTexts {
  private readonly entries: LRUCache<string, { version: string; text: string }>;
  private counts = { hits: 0, misses: 0 };

  constructor(maxLength: number) {
    // A text longer than maxLength is not kept (lru-cache's maxEntrySize defaults to maxSize); an empty one counts 1.
    this.entries = new LRUCache({ maxSize: maxLength, sizeCalculation: (entry) => Math.max(1, entry.text.length) });
  }

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
    this.counts.hits++;
    return entry.text;
  }

  /** Keeps `text`, derived from `version` of the rows behind `key`, in place of what was kept for `key`. */
  set(key: string, version: string, text: string): void {
    this.entries.set(key, { version, text });
  }
}
