import { LRUCache } from 'lru-cache';

/** Options of a TtlCache. */
export interface TtlCacheOptions {
  ttlMs: number;
  /** At most this many entries; the least recently used go first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * A bounded in-memory map whose entries expire `ttlMs` after they were set (on the `now` clock, which tests move).
 * Expired entries are dropped when read; past `maxEntries` the least recently used entry is evicted (lru-cache),
 * so memory stays bounded whatever the traffic. The expiry is checked here rather than by lru-cache's `ttl`, which
 * serves an entry until its age exceeds the ttl: this cache's entry is gone at ttlMs.
 */
export class TtlCache<V> {
  private readonly entries: LRUCache<string, { value: V; expires: number }>;
  private readonly now: () => number;

  constructor(private readonly options: TtlCacheOptions) {
    this.now = options.now ?? Date.now;
    this.entries = new LRUCache({ max: options.maxEntries });
  }

  /** The value set for `key` less than ttlMs ago, if any. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Sets `key` for ttlMs from now, evicting the least recently used entry beyond maxEntries. */
  set(key: string, value: V): void {
    this.entries.set(key, { value, expires: this.now() + this.options.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
