/** The table and project versions indexes are checked against (TableVersions in table-version-cache.ts). */
export interface IndexVersions {
  readonly listening: boolean;
  versionsOf(projectId: string, tables: readonly string[], projectWrites: boolean): number[];
  projectVersion(projectId: string): number;
  sync(): Promise<boolean>;
}

/** How many indexes a process keeps, how large they may be together, and how large one project's may be. */
export interface IndexLimits {
  maxIndexes: number;
  maxBytes: number;
  /** A build that would exceed it gives no index (the project's reads run their statements). */
  maxProjectBytes: number;
}

/** What a build may take, and how it says it would take more (see ProjectIndexes.boundFor). */
export interface IndexBound {
  maxBytes: number;
  refuse(estimatedBytes: number): void;
  /** The index cannot answer as the database would (`reason`): the build gives none. */
  unusable(reason: string): void;
}

/** No bound: for builds outside a process's indexes (tools, tests). */
export const UNBOUNDED: IndexBound = { maxBytes: Infinity, refuse: () => {}, unusable: () => {} };

interface Slot<T> {
  value?: T;
  /** The table versions (and feed drops) `value` was built at (see TableVersions.versionsOf). */
  versions?: number[];
  /** The project's write count (this process's writes) `value` is known to be exact at. */
  projectVersion?: number;
  /** The value's estimated size in bytes (options.sizeOf). */
  size: number;
  building?: Promise<void>;
  syncing?: Promise<void>;
  /** No build starts before this time (ms since epoch): rebuilds are spaced by their own cost. */
  notBefore: number;
  /** Builds started for this slot. */
  builds: number;
}

// A build may take this many times its own duration of every stretch of time at most: a project whose rows
// change all the time costs a fifth of a core in rebuilds, and its reads fall back to their statements meanwhile.
const SPACING = 4;

// Builds of every ProjectIndexes of the process run one after another: a build briefly holds its rows and
// intermediate arrays beside the index it makes (tens of MB at 100,000 products), and a search that needs the
// product index and the suggest index's vocabulary would otherwise start both at once and hold both builds' at
// the same time. Requests read from the database while an index waits.
let buildsDone: Promise<unknown> = Promise.resolve();
const inTurn = <V>(build: () => Promise<V>): Promise<V> => {
  const turn = buildsDone.then(build);
  buildsDone = turn.catch(() => undefined);
  return turn;
};

/**
 * In-process indexes derived from a project's rows in some tables (one per (project, key)), built lazily in the
 * background and served only while exact: while the change feed listens and none of the tables changed since the
 * build began. A write of this process to the project (which commits before its notifications arrive) suspends
 * the project's indexes until a sync of the change feed shows whether it touched their tables: if not, they are
 * served again without a rebuild. A stale or missing index answers `undefined` (the caller reads from the
 * database instead) and starts a rebuild, one at a time per index, spaced by the last build's duration. Bounded
 * by count and by estimated size (`limits`; the least recently used go first).
 */
export class ProjectIndexes<T> {
  private readonly slots: Map<string, Slot<T>>;
  private readonly counts: { hits: number; misses: number; builds: number; refusals: number; unusable: number };
  /** Set on a view reading from a source that may lag: whether a build starting now may be kept. */
  private readonly current?: (projectId: string) => boolean;

  constructor(
    private readonly versions: IndexVersions,
    private readonly limits: IndexLimits & { sizeOf: (value: T) => number },
    private readonly onError: (error: unknown) => void = () => {},
    shared?: { from: ProjectIndexes<T>; current: (projectId: string) => boolean },
  ) {
    this.slots = shared?.from.slots ?? new Map<string, Slot<T>>();
    this.counts = shared?.from.counts ?? { hits: 0, misses: 0, builds: 0, refusals: 0, unusable: 0 };
    this.current = shared?.current;
  }

  /** Reads answered from an index since the process started (for the metrics). */
  get hits(): number {
    return this.counts.hits;
  }

  /** Reads that found no exact index (and went to the database) since the process started. */
  get misses(): number {
    return this.counts.misses;
  }

  /**
   * The bound a build of the project's index works within (the per-project bound); a build that finds its index
   * would exceed it calls `refuse` (counted and reported through onError) and gives none.
   */
  boundFor(projectId: string): IndexBound {
    return {
      maxBytes: this.limits.maxProjectBytes,
      refuse: (estimatedBytes) => {
        this.counts.refusals++;
        this.onError(
          new Error(
            `project ${projectId}'s index would take about ${Math.round(estimatedBytes / 2 ** 20)} MB, over its bound ` +
              `of ${Math.round(this.limits.maxProjectBytes / 2 ** 20)} MB: its reads run their statements`,
          ),
        );
      },
      unusable: (reason) => {
        this.counts.unusable++;
        this.onError(new Error(`project ${projectId}'s index is not used: ${reason}; its reads run their statements`));
      },
    };
  }

  /** Builds that gave no index because it could not answer as the database would (IndexBound.unusable). */
  get unusable(): number {
    return this.counts.unusable;
  }

  /** Builds that gave no index because it would exceed the project's bound, since the process started. */
  get refusals(): number {
    return this.counts.refusals;
  }

  /** What the kept indexes take together, by their estimates (for the metrics). */
  get bytes(): number {
    let bytes = 0;
    for (const slot of this.slots.values()) bytes += slot.size;
    return bytes;
  }

  /** Builds started since the process started (for the metrics). */
  get builds(): number {
    return this.counts.builds;
  }

  /** Builds of the project's index for `key` started since the process started (tests; 0 when never built). */
  buildsOf(projectId: string, key: string): number {
    return this.slots.get(`${projectId}|${key}`)?.builds ?? 0;
  }

  /** The same indexes for requests reading from a source that may lag (a read replica): a build is kept only when `current(project)` held as it began. */
  readingFrom(current: (projectId: string) => boolean): ProjectIndexes<T> {
    return new ProjectIndexes<T>(this.versions, this.limits, this.onError, { from: this, current });
  }

  /**
   * The project's index for `key` (built from `tables` by `build`) when it is exact now; otherwise `undefined`,
   * and a sync or a build starts in the background (unless one runs, or the last build finished too recently).
   */
  get(projectId: string, key: string, tables: readonly string[], build: () => Promise<T>): T | undefined {
    const slotKey = `${projectId}|${key}`;
    const slot = this.slots.get(slotKey);
    if (slot) {
      this.slots.delete(slotKey); // most recently used last
      this.slots.set(slotKey, slot);
    }
    const state = this.stateOf(projectId, tables, slot);
    if (state === 'exact') {
      this.counts.hits++;
      return slot!.value;
    }
    this.counts.misses++;
    if (state === 'suspended') void this.startSync(projectId, tables, slot!);
    else {
      if (slot) {
        // Stale: let it go now rather than keep two copies while the next one is built.
        slot.value = undefined;
        slot.versions = undefined;
        slot.size = 0;
      }
      void this.startBuild(projectId, slotKey, tables, build);
    }
    return undefined;
  }

  /** Brings the index up to date now if it is not (waiting for a sync or build under way) and returns it when exact (tests, warm-up). */
  async ready(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
  ): Promise<T | undefined> {
    const slotKey = `${projectId}|${key}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const slot = this.slots.get(slotKey);
      const state = this.stateOf(projectId, tables, slot);
      if (state === 'exact') return slot!.value;
      if (slot?.building) await slot.building;
      else if (state === 'suspended') await this.startSync(projectId, tables, slot!);
      else {
        if (slot) slot.notBefore = 0;
        await this.startBuild(projectId, slotKey, tables, build);
      }
    }
    return this.get(projectId, key, tables, build);
  }

  /** exact: may be served; suspended: exact but for this process's writes since, which a sync may clear; stale: rebuild. */
  private stateOf(projectId: string, tables: readonly string[], slot: Slot<T> | undefined) {
    if (!this.versions.listening || !slot?.versions) return 'stale';
    if (!sameVersions(slot.versions, this.versions.versionsOf(projectId, tables, false))) return 'stale';
    return slot.projectVersion === this.versions.projectVersion(projectId) ? 'exact' : 'suspended';
  }

  private startSync(projectId: string, tables: readonly string[], slot: Slot<T>): Promise<void> {
    if (slot.syncing) return slot.syncing;
    const projectVersion = this.versions.projectVersion(projectId);
    const versions = slot.versions;
    slot.syncing = this.versions
      .sync()
      .then((heard) => {
        // Every notification of the writes counted in projectVersion is in: none of them touched the tables.
        const now = this.versions.versionsOf(projectId, tables, false);
        if (heard && versions && slot.versions === versions && sameVersions(versions, now))
          slot.projectVersion = projectVersion;
      })
      .catch(this.onError)
      .finally(() => {
        slot.syncing = undefined;
      });
    return slot.syncing;
  }

  private startBuild(
    projectId: string,
    slotKey: string,
    tables: readonly string[],
    build: () => Promise<T>,
  ): Promise<void> {
    let slot = this.slots.get(slotKey);
    if (!slot) {
      slot = { notBefore: 0, size: 0, builds: 0 };
      this.slots.set(slotKey, slot);
      this.evict(slot);
    }
    if (slot.building) return slot.building;
    if (Date.now() < slot.notBefore || !this.versions.listening) return Promise.resolve();
    if (this.current && !this.current(projectId)) return Promise.resolve();
    const target = slot;
    target.building = inTurn(async () => {
      // Checked again when its turn comes (another build may have run meanwhile).
      if (!this.versions.listening || (this.current && !this.current(projectId))) return;
      const versions = this.versions.versionsOf(projectId, tables, false);
      const projectVersion = this.versions.projectVersion(projectId);
      const started = Date.now();
      target.builds++;
      this.counts.builds++;
      try {
        const value = await build();
        // Kept only when no table changed while it was read: a change heard meanwhile may or may not be in it. A
        // write of this process meanwhile leaves it suspended (projectVersion is the one before the read began).
        if (this.versions.listening && sameVersions(this.versions.versionsOf(projectId, tables, false), versions)) {
          target.value = value;
          target.versions = versions;
          target.projectVersion = projectVersion;
          target.size = this.limits.sizeOf(value);
          this.evict(target);
        }
      } finally {
        target.notBefore = Date.now() + (Date.now() - started) * SPACING;
      }
    })
      .catch(this.onError)
      .finally(() => {
        target.building = undefined;
      });
    return target.building;
  }

  /** Drops the least recently used indexes (never `keep`) while there are too many or they are too large together. */
  private evict(keep: Slot<T>): void {
    let bytes = [...this.slots.values()].reduce((sum, slot) => sum + slot.size, 0);
    for (const [key, slot] of this.slots) {
      if (this.slots.size <= this.limits.maxIndexes && bytes <= this.limits.maxBytes) break;
      if (slot === keep) continue;
      this.slots.delete(key);
      bytes -= slot.size;
    }
  }
}

const sameVersions = (a: number[], b: number[]) => a.length === b.length && a.every((version, i) => version === b[i]);
