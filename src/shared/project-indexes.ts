/** The table and project versions indexes are checked against (TableVersions in table-version-cache.ts). */
export interface IndexVersions {
  readonly listening: boolean;
  versionsOf(projectId: string, tables: readonly string[], projectWrites: boolean): number[];
}

interface Slot<T> {
  value?: T;
  /** The versions `value` was built at (see TableVersions.versionsOf). */
  versions?: number[];
  building?: Promise<void>;
  /** No build starts before this time (ms since epoch): rebuilds are spaced by their own cost. */
  notBefore: number;
}

// A build may take this many times its own duration of every stretch of time at most: a project whose rows
// change all the time costs a fifth of a core in rebuilds, and its reads fall back to their statements meanwhile.
const SPACING = 4;

/**
 * In-process indexes derived from a project's rows in some tables (one per (project, key)), built lazily in the
 * background and served only while exact: while the change feed listens and none of the tables (nor the project,
 * through this process's writes) changed since the build began. A stale or missing index answers `undefined`
 * (the caller reads from the database instead) and starts a rebuild, one at a time per index, spaced by the last
 * build's duration. Bounded (`maxIndexes`, least recently used out).
 */
export class ProjectIndexes<T> {
  private readonly slots: Map<string, Slot<T>>;
  private readonly counts: { hits: number; misses: number };
  /** Set on a view reading from a source that may lag: whether a build starting now may be kept. */
  private readonly current?: () => boolean;

  constructor(
    private readonly versions: IndexVersions,
    private readonly maxIndexes: number,
    private readonly onError: (error: unknown) => void = () => {},
    shared?: { from: ProjectIndexes<T>; current: () => boolean },
  ) {
    this.slots = shared?.from.slots ?? new Map<string, Slot<T>>();
    this.counts = shared?.from.counts ?? { hits: 0, misses: 0 };
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

  /** The same indexes for requests reading from a source that may lag (a read replica): a build is kept only when `current()` held as it began. */
  readingFrom(current: () => boolean): ProjectIndexes<T> {
    return new ProjectIndexes<T>(this.versions, this.maxIndexes, this.onError, { from: this, current });
  }

  /**
   * The project's index for `key` (built from `tables` by `build`) when it is exact now; otherwise `undefined`,
   * and a build starts in the background unless one runs or the last finished too recently.
   */
  get(projectId: string, key: string, tables: readonly string[], build: () => Promise<T>): T | undefined {
    const slotKey = `${projectId}|${key}`;
    const slot = this.slots.get(slotKey);
    const now = this.versions.versionsOf(projectId, tables, true);
    if (slot) {
      this.slots.delete(slotKey); // most recently used last
      this.slots.set(slotKey, slot);
    }
    if (this.versions.listening && slot?.versions && sameVersions(slot.versions, now)) {
      this.counts.hits++;
      return slot.value;
    }
    this.counts.misses++;
    if (slot?.versions) {
      // Stale: let it go now rather than keep two copies while the next one is built.
      slot.value = undefined;
      slot.versions = undefined;
    }
    void this.startBuild(projectId, slotKey, tables, build);
    return undefined;
  }

  /** Builds the index now if it is not exact (waiting for a build under way) and returns it when exact (tests, warm-up). */
  async ready(
    projectId: string,
    key: string,
    tables: readonly string[],
    build: () => Promise<T>,
  ): Promise<T | undefined> {
    const slotKey = `${projectId}|${key}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const slot = this.slots.get(slotKey);
      const now = this.versions.versionsOf(projectId, tables, true);
      if (this.versions.listening && slot?.versions && sameVersions(slot.versions, now)) return slot.value;
      if (slot?.building) await slot.building;
      else {
        if (slot) slot.notBefore = 0;
        await this.startBuild(projectId, slotKey, tables, build);
      }
    }
    return this.get(projectId, key, tables, build);
  }

  private startBuild(
    projectId: string,
    slotKey: string,
    tables: readonly string[],
    build: () => Promise<T>,
  ): Promise<void> {
    let slot = this.slots.get(slotKey);
    if (!slot) {
      slot = { notBefore: 0 };
      this.slots.set(slotKey, slot);
      if (this.slots.size > this.maxIndexes) this.slots.delete(this.slots.keys().next().value!);
    }
    if (slot.building || Date.now() < slot.notBefore || !this.versions.listening)
      return slot.building ?? Promise.resolve();
    if (this.current && !this.current()) return Promise.resolve();
    const target = slot;
    const versions = this.versions.versionsOf(projectId, tables, true);
    const started = Date.now();
    target.building = build()
      .then((value) => {
        const after = this.versions.versionsOf(projectId, tables, true);
        // Kept only when nothing changed while it was read: a change heard meanwhile may or may not be in it.
        if (this.versions.listening && sameVersions(after, versions)) {
          target.value = value;
          target.versions = versions;
        }
      })
      .catch(this.onError)
      .finally(() => {
        target.building = undefined;
        target.notBefore = Date.now() + (Date.now() - started) * SPACING;
      });
    return target.building;
  }
}

const sameVersions = (a: number[], b: number[]) => a.length === b.length && a.every((version, i) => version === b[i]);
