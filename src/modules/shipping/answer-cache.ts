/** Options of a TtlCache. */
export interface TtlCacheOptions {
  ttlMs: number;
  /** At most this many entries; the oldest go first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * A bounded in-memory map whose entries expire `ttlMs` after they were set. Expired entries are dropped
 * when read; past `maxEntries` the oldest entry is evicted, so memory stays bounded whatever the traffic.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TtlCacheOptions) {
    this.now = options.now ?? Date.now;
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

  /** Sets `key` for ttlMs from now, evicting the oldest entries beyond maxEntries. */
  set(key: string, value: V): void {
    this.entries.delete(key); // re-inserted last: Map order is insertion order
    this.entries.set(key, { value, expires: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
