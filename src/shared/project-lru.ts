import { LRUCache } from 'lru-cache';

// One project holds at most this part of a cache (a quarter), as in TableVersionCache.
const PROJECT_SHARE = 4;

export interface ProjectLruOptions<V> {
  /** The bound of the whole cache: its entries' total size (`sizeOf`, 1 each without it). */
  maxSize: number;
  sizeOf?: (value: V) => number;
}

/**
 * A bounded map per project, least recently used out (lru-cache), in which one project holds at most a quarter of
 * the bound: past its share its own least recently used entry goes, else past the bound the process's least
 * recently used, so one project's traffic never pushes every other project's entries out. An entry larger than a
 * project's share is not kept.
 */
export class ProjectLru<V extends NonNullable<unknown>> {
  /** Every entry, keyed `<project id>\n<key>`: the order across projects. */
  private readonly all: LRUCache<string, V>;
  /** Each project's entries (the same keys): its own order, bounded by its share. */
  private readonly projects = new Map<string, LRUCache<string, V>>();
  private readonly share: number;
  private readonly sizeOf: (value: V) => number;

  constructor(options: ProjectLruOptions<V>) {
    this.sizeOf = (value) => Math.max(1, options.sizeOf?.(value) ?? 1);
    this.share = Math.max(1, Math.ceil(options.maxSize / PROJECT_SHARE));
    this.all = new LRUCache<string, V>({
      maxSize: options.maxSize,
      sizeCalculation: this.sizeOf,
      // Evicted past the bound: gone from its project's map too (a delete there calls no dispose back here).
      dispose: (_value, fullKey, reason) => {
        if (reason === 'evict') this.forget(fullKey);
      },
    });
  }

  /** The value kept for the project's `key`, if any (now the most recently used). */
  get(projectId: string, key: string): V | undefined {
    const fullKey = `${projectId}\n${key}`;
    const value = this.all.get(fullKey);
    if (value !== undefined) this.projects.get(projectId)?.get(fullKey);
    return value;
  }

  /** Keeps `value` for the project's `key`, evicting as the class says. */
  set(projectId: string, key: string, value: V): void {
    const fullKey = `${projectId}\n${key}`;
    let own = this.projects.get(projectId);
    if (!own) {
      own = new LRUCache<string, V>({
        maxSize: this.share,
        sizeCalculation: this.sizeOf,
        // Evicted past the project's share: gone from the whole cache too.
        dispose: (_value, evicted, reason) => {
          if (reason === 'evict') this.all.delete(evicted);
        },
      });
      this.projects.set(projectId, own);
    }
    own.set(fullKey, value);
    if (own.has(fullKey)) this.all.set(fullKey, value);
    else this.delete(projectId, key); // larger than the share
  }

  /** Forgets the project's `key`. */
  delete(projectId: string, key: string): void {
    const fullKey = `${projectId}\n${key}`;
    this.all.delete(fullKey);
    this.forget(fullKey);
  }

  /** Entries kept, all projects together. */
  get size(): number {
    return this.all.size;
  }

  private forget(fullKey: string): void {
    const projectId = fullKey.slice(0, fullKey.indexOf('\n'));
    const own = this.projects.get(projectId);
    if (!own) return;
    own.delete(fullKey);
    if (own.size === 0) this.projects.delete(projectId);
  }
}
