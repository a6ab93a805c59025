import { ProjectLru } from '../../shared/project-lru.js';

/** Options of a TtlCache. */
export interface TtlCacheOptions {
  ttlMs: number;
  /** At most this many entries, one project's at most a quarter of them; the least recently used go first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * A bounded in-memory map whose entries expire `ttlMs` after they were set (on the `now` clock, which tests move).
 * Expired entries are dropped when read; past `maxEntries` the least recently used entry is evicted, and past a
 * quarter of them the project's own least recently used (ProjectLru), so memory stays bounded whatever the traffic
 * and one project's lookups never push every other project's answers out. The expiry is checked here rather than by lru-cache's `ttl`, which
 * serves an entry until its age exceeds the ttl: this cache's entry is gone at ttlMs.
 */
export class TtlCache<V> {
  private readonly entries: ProjectLru<{ value: V; expires: number }>;
  private readonly now: () => number;

  constructor(private readonly options: TtlCacheOptions) {
    this.now = options.now ?? Date.now;
    this.entries = new ProjectLru({ maxSize: options.maxEntries });
  }

  /** The value set for the project's `key` less than ttlMs ago, if any. */
  get(projectId: string, key: string): V | undefined {
    const entry = this.entries.get(projectId, key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(projectId, key);
      return undefined;
    }
    return entry.value;
  }

  /** Sets the project's `key` for ttlMs from now, evicting as the class says. */
  set(projectId: string, key: string, value: V): void {
    this.entries.set(projectId, key, { value, expires: this.now() + this.options.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
