/** The table and project versions indexes are checked against (TableVersions in table-versions.ts). */
export interface IndexVersions {
  readonly listening: boolean;
  versionsOf(projectId: string, tables: readonly string[], projectWrites: boolean): number[];
  projectVersion(projectId: string): number;
  sync(): Promise<boolean>;
  caughtUp(): Promise<boolean>;
  trackRows(projectId: string, table: string): void;
  rowsChanged(projectId: string, table: string, from: number, to: number): string[] | undefined;
}

/**
 * How an index applies changed rows of one of its tables instead of a rebuild (see ProjectIndexes.get): `apply`
 * reads the rows with those ids now and answers the index with them applied, or null when a rebuild serves better.
 */
export interface IndexPatch<T> {
  table: string;
  /** false: `apply` reads what it needs afresh, whatever rows changed (it is given none), so their ids are not needed. */
  byRows?: boolean;
  apply(value: T, rows: string[]): Promise<T | null>;
  /** Whether a value has taken so many changes that a build should replace it (it is served until then). */
  compact(value: T): boolean;
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
  patching?: Promise<void>;
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
  private readonly counts: {
    hits: number;
    misses: number;
    builds: number;
    patches: number;
    refusals: number;
    unusable: number;
  };
  /** Set on a view reading from a source that may lag: whether a build starting now may be kept. */
  private readonly current?: (projectId: string) => boolean;

  constructor(
    private readonly versions: IndexVersions,
    private readonly limits: IndexLimits & { sizeOf: (value: T) => number },
    private readonly onError: (error: unknown) => void = () => {},
    shared?: { from: ProjectIndexes<T>; current: (projectId: string) => boolean },
  ) {
    this.slots = shared?.from.slots ?? new Map<string, Slot<T>>();
    this.counts = shared?.from.counts ?? { hits: 0, misses: 0, builds: 0, patches: 0, refusals: 0, unusable: 0 };
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

  /** Changed rows applied to indexes (IndexPatch) since the process started (for the metrics). */
  get patches(): number {
    return this.counts.patches;
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
   * The project's index for `key` (built from `tables` by `build`) when it is exact now (call after caughtUp(), so
   * that "now" includes every write answered before the read began); otherwise `undefined`,
   * and a sync, a patch (`patch`: only rows of its table changed, and their ids are known) or a build starts in
   * the background (unless one runs, or the last build finished too recently).
   */
  get(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
    patch?: IndexPatch<T>,
  ): T | undefined {
    return this.counted(this.lookup(projectId, key, tables, build, patch));
  }

  /** Counts a read as a hit or a miss; answers its value. */
  private counted(value: T | undefined): T | undefined {
    if (value === undefined) this.counts.misses++;
    else this.counts.hits++;
    return value;
  }

  /**
   * Resolves once every notification of what committed before the call has been heard (TableVersions.caughtUp):
   * await it before get(), so an index is not served before a write another process answered shows in it.
   */
  async caughtUp(): Promise<void> {
    if (this.versions.listening) await this.versions.caughtUp();
  }

  /**
   * As get, but when the index is only waiting for a sync of this process's writes or for changed rows to be
   * applied (both take a round trip or two), waits for them up to `waitMs` rather than answer `undefined`; first
   * waits for every notification of what committed before the call (caughtUp), as get's callers do.
   */
  async waitingGet(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
    patch: IndexPatch<T> | undefined,
    waitMs: number,
  ): Promise<T | undefined> {
    const until = Date.now() + waitMs;
    if (this.slots.get(`${projectId}|${key}`)?.value !== undefined) await this.caughtUp();
    for (let attempt = 0; attempt < 3; attempt++) {
      const value = this.lookup(projectId, key, tables, build, patch);
      const slot = this.slots.get(`${projectId}|${key}`);
      const pending = slot?.patching ?? slot?.syncing;
      const left = until - Date.now();
      if (value !== undefined || !pending || left <= 0) return this.counted(value);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
    return this.get(projectId, key, tables, build, patch);
  }

  /**
   * When the project's index for `key` is held but waits for a sync or for changed rows to be applied, starts them
   * now (never a build), so a read that comes a little later finds it exact: a request that will read several
   * indexes starts them all at once rather than wait for each in turn.
   */
  refresh(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
    patch?: IndexPatch<T>,
  ): void {
    const slot = this.slots.get(`${projectId}|${key}`);
    if (slot?.value === undefined) return;
    const state = this.stateOf(projectId, tables, slot, patch);
    if (state.name === 'suspended') void this.startSync(projectId, tables, slot);
    else if (state.name === 'patchable')
      void this.startPatch(projectId, `${projectId}|${key}`, tables, build, slot, patch!);
  }

  private lookup(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
    patch: IndexPatch<T> | undefined,
  ): T | undefined {
    const slotKey = `${projectId}|${key}`;
    const slot = this.slots.get(slotKey);
    if (slot) {
      this.slots.delete(slotKey); // most recently used last
      this.slots.set(slotKey, slot);
    }
    const state = this.stateOf(projectId, tables, slot, patch);
    if (state.name === 'exact') return slot!.value;
    if (state.name === 'suspended') void this.startSync(projectId, tables, slot!);
    else if (state.name === 'patchable') void this.startPatch(projectId, slotKey, tables, build, slot!, patch!);
    else {
      if (slot) {
        // Stale: let it go now rather than keep two copies while the next one is built.
        slot.value = undefined;
        slot.versions = undefined;
        slot.size = 0;
      }
      void this.startBuild(projectId, slotKey, tables, build, patch);
    }
    return undefined;
  }

  /** Brings the index up to date now if it is not (waiting for a sync or build under way) and returns it when exact (tests, warm-up). */
  async ready(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
    patch?: IndexPatch<T>,
  ): Promise<T | undefined> {
    const slotKey = `${projectId}|${key}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const slot = this.slots.get(slotKey);
      const state = this.stateOf(projectId, tables, slot, patch);
      if (state.name === 'exact') return slot!.value;
      if (slot?.building) await slot.building;
      else if (state.name === 'suspended') await this.startSync(projectId, tables, slot!);
      else if (state.name === 'patchable') await this.startPatch(projectId, slotKey, tables, build, slot!, patch!);
      else {
        if (slot) slot.notBefore = 0;
        await this.startBuild(projectId, slotKey, tables, build, patch);
      }
    }
    return this.get(projectId, key, tables, build, patch);
  }

  /**
   * exact: may be served; suspended: exact but for this process's writes since, which a sync may clear;
   * patchable: only rows of the patch's table changed since, and their ids are known (`rows`); stale: rebuild.
   */
  private stateOf(
    projectId: string,
    tables: readonly string[],
    slot: Slot<T> | undefined,
    patch: IndexPatch<T> | undefined,
  ): { name: 'exact' | 'suspended' | 'stale' } | { name: 'patchable'; rows: string[]; versions: number[] } {
    if (!this.versions.listening || !slot?.versions) return { name: 'stale' };
    const now = this.versions.versionsOf(projectId, tables, false);
    if (sameVersions(slot.versions, now))
      return { name: slot.projectVersion === this.versions.projectVersion(projectId) ? 'exact' : 'suspended' };
    if (!patch || slot.value === undefined || (this.current && !this.current(projectId))) return { name: 'stale' };
    const rows = this.rowsBetween(projectId, tables, patch, slot.versions, now);
    return rows ? { name: 'patchable', rows, versions: now } : { name: 'stale' };
  }

  /** The ids of the rows of the patch's table changed from `before` to `now`, when nothing else changed and they are known. */
  private rowsBetween(
    projectId: string,
    tables: readonly string[],
    patch: IndexPatch<T>,
    before: number[],
    now: number[],
  ): string[] | undefined {
    // The table versions follow the drops, serial and writes counts (versionsOf).
    const at = 3 + tables.indexOf(patch.table);
    if (!now.every((version, i) => i === at || version === before[i])) return undefined;
    if (patch.byRows === false) return [];
    return this.versions.rowsChanged(projectId, patch.table, before[at], now[at]);
  }

  /** Applies the rows changed since the slot's value was made (IndexPatch); on null, the slot is stale (rebuilt at the next read). */
  private startPatch(
    projectId: string,
    slotKey: string,
    tables: readonly string[],
    build: () => Promise<T>,
    slot: Slot<T>,
    patch: IndexPatch<T>,
  ): Promise<void> {
    if (slot.patching) return slot.patching;
    const state = this.stateOf(projectId, tables, slot, patch);
    if (state.name !== 'patchable') return Promise.resolve();
    const { value, versions: before } = slot;
    const projectVersion = this.versions.projectVersion(projectId);
    this.counts.patches++;
    slot.patching = patch
      .apply(value!, state.rows)
      .then((patched) => {
        if (slot.value !== value || slot.versions !== before) return;
        if (patched === null) {
          slot.value = undefined;
          slot.versions = undefined;
          slot.size = 0;
          slot.notBefore = 0;
          return;
        }
        // Kept as a build is: only when no table changed while the rows were read.
        if (
          this.versions.listening &&
          sameVersions(this.versions.versionsOf(projectId, tables, false), state.versions)
        ) {
          slot.value = patched;
          slot.versions = state.versions;
          slot.projectVersion = projectVersion;
          slot.size = this.limits.sizeOf(patched);
          this.evict(slot);
          if (patch.compact(patched)) void this.startBuild(projectId, slotKey, tables, build, patch);
        }
      })
      .catch(this.onError)
      .finally(() => {
        slot.patching = undefined;
      });
    return slot.patching;
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
    patch?: IndexPatch<T>,
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
      // Changed rows are logged from now on, so the index built can apply them (IndexPatch).
      if (patch && patch.byRows !== false) this.versions.trackRows(projectId, patch.table);
      const versions = this.versions.versionsOf(projectId, tables, false);
      const projectVersion = this.versions.projectVersion(projectId);
      const started = Date.now();
      target.builds++;
      this.counts.builds++;
      try {
        const value = await build();
        // Kept only when no table changed while it was read: a change heard meanwhile may or may not be in it. A
        // write of this process meanwhile leaves it suspended (projectVersion is the one before the read began).
        // With `patch`, also when only its table's rows changed meanwhile, by known ids: the next read applies them.
        const now = this.versions.versionsOf(projectId, tables, false);
        if (
          this.versions.listening &&
          (sameVersions(now, versions) || (patch && this.rowsBetween(projectId, tables, patch, versions, now)))
        ) {
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
