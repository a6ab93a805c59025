import type { ChangeFeed } from './change-feed.js';

/** The channel the table triggers notify (payload: the table's name) on commit of any write. */
export const TABLE_CHANGED = 'table_changed';
const MAX_ENTRIES = 10_000;

/**
 * `pagination.total` of list first pages, cached per (project, list, filters) so that a list page does
 * not cost a count(*); `cached()` keeps other per-project reads the same way (the event types a
 * project's webhooks listen to). An entry is only served while the change feed listens and none of the list's
 * tables changed since it was counted: every write to a table (any process, any statement, raw SQL
 * included) notifies on commit through a statement trigger, and a write through writeTx in this process
 * invalidates its project's entries at once. Without the listener every total is counted.
 */
export class ListTotals {
  /** Totals and other small values, read inside the caller's transaction: misses are never shared between requests. */
  private readonly values: VersionedCache<unknown> = new VersionedCache<unknown>(this, MAX_ENTRIES, {
    shareMisses: false,
  });
  private readonly tableVersions = new Map<string, number>();
  private readonly projectVersions = new Map<string, number>();
  /** Counts the listener's drops: a total counted across a drop may have missed a notification. */
  private drops = 0;

  constructor(private readonly feed: ChangeFeed) {
    feed.on(TABLE_CHANGED, (table) => this.tableVersions.set(table, (this.tableVersions.get(table) ?? 0) + 1));
    feed.onLost(() => {
      this.drops += 1;
    });
  }

  /** Whether entries may be served: the change feed is receiving notifications right now. */
  get listening(): boolean {
    return this.feed.listening;
  }

  /**
   * The versions an entry computed from `tables` of the project depends on (compare with `every`); without
   * `projectWrites`, this process's writes to the project do not count (only the tables' own changes do).
   */
  versionsOf(projectId: string, tables: readonly string[], projectWrites = true): number[] {
    return [
      this.drops,
      projectWrites ? (this.projectVersions.get(projectId) ?? 0) : 0,
      ...tables.map((table) => this.tableVersions.get(table) ?? 0),
    ];
  }

  /** Marks `table` changed by a write of this process at once, before its notification arrives. */
  tableWritten(table: string): void {
    this.tableVersions.set(table, (this.tableVersions.get(table) ?? 0) + 1);
  }

  /** Marks the project's totals stale (a write of this process committed). */
  projectWritten(projectId: string): void {
    this.projectVersions.set(projectId, (this.projectVersions.get(projectId) ?? 0) + 1);
  }

  /** The total for `key`: the cached one when still exact, else `count()`'s answer, cached. */
  total(projectId: string, key: string, tables: readonly string[], count: () => Promise<number>): Promise<number> {
    return this.cached(projectId, `total|${key}`, tables, count);
  }

  /**
   * Any value derived from the project's rows in `tables` (which must carry the table_changed trigger):
   * the cached one while none of them changed since it was read, else `read()`'s answer, cached.
   * `projectWrites: false` for values that every write of the project would otherwise invalidate for
   * nothing (the writers of `tables` then call `tableWritten`).
   */
  cached<T>(
    projectId: string,
    key: string,
    tables: readonly string[],
    read: () => Promise<T>,
    options: { projectWrites?: boolean } = {},
  ): Promise<T> {
    return this.values.get(projectId, key, tables, read, options) as Promise<T>;
  }
}

/**
 * Values (search answers, for example) cached per (project, key) on the same terms as the list totals:
 * an entry is served only while the change feed listens and none of the tables it was computed from nor
 * the project (through this process's writes) changed since. Bounded (`maxEntries`, least recently used
 * out); with `shareMisses` (the default) concurrent misses of a key share one computation, which values read
 * inside a caller's transaction must not do (ListTotals.cached).
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { value: T; versions: number[] }>();
  /** Computations under way: concurrent misses of one key wait for the same one (no stampede after a change). */
  private readonly pending = new Map<string, { value: Promise<T>; versions: number[] }>();

  private readonly shareMisses: boolean;

  constructor(
    private readonly totals: ListTotals,
    private readonly maxEntries: number,
    options: { shareMisses?: boolean } = {},
  ) {
    this.shareMisses = options.shareMisses ?? true;
  }

  /** The value for `key`: the cached one when still exact, else `compute()`'s answer, cached. */
  async get(
    projectId: string,
    key: string,
    tables: readonly string[],
    compute: () => Promise<T>,
    { projectWrites = true } = {},
  ): Promise<T> {
    const cacheKey = `${projectId}|${key}`;
    const versions = this.totals.versionsOf(projectId, tables, projectWrites);
    const same = (other: number[]) => other.every((version, i) => version === versions[i]);
    const entry = this.entries.get(cacheKey);
    if (this.totals.listening && entry && same(entry.versions)) {
      this.entries.delete(cacheKey); // most recently used last
      this.entries.set(cacheKey, entry);
      return entry.value;
    }
    const running = this.pending.get(cacheKey);
    // A computation that started at these versions answers as exactly as a new one would.
    if (this.shareMisses && this.totals.listening && running && same(running.versions)) return running.value;
    const wasListening = this.totals.listening;
    const value = compute();
    if (this.shareMisses) this.pending.set(cacheKey, { value, versions });
    try {
      const result = await value;
      const after = this.totals.versionsOf(projectId, tables, projectWrites);
      if (wasListening && this.totals.listening && same(after)) {
        this.entries.delete(cacheKey);
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(cacheKey, { value: result, versions });
      }
      return result;
    } finally {
      if (this.pending.get(cacheKey)?.value === value) this.pending.delete(cacheKey);
    }
  }
}
