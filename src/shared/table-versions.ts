import type { ChangeFeed } from './change-feed.js';

/**
 * The channel the table triggers notify on commit of any write: the payload is `<table>:<project id>`, once per
 * project the statement's rows belong to, or `<table>` alone (a TRUNCATE: every project). search_products adds
 * the ids of the rows the statement changed (`<table>:<project id>:<id>,<id>`) while they fit.
 */
export const TABLE_CHANGED = 'table_changed';

/** The table, the project (undefined: every project) and the changed rows' ids (undefined: not said) a table_changed payload names. */
export function changeOf(payload: string): { table: string; projectId: string | undefined; rows?: string[] } {
  const colon = payload.indexOf(':');
  if (colon < 0) return { table: payload, projectId: undefined };
  const second = payload.indexOf(':', colon + 1);
  return second < 0
    ? { table: payload.slice(0, colon), projectId: payload.slice(colon + 1) }
    : {
        table: payload.slice(0, colon),
        projectId: payload.slice(colon + 1, second),
        rows: payload.slice(second + 1).split(','),
      };
}

/**
 * The rows of one project's table changed at each version since `from` (the version the log began at): each
 * notification's ids, or null when it named none.
 */
interface RowLog {
  from: number;
  changes: Array<{ version: number; rows: string[] | null }>;
  size: number;
}

// Row logs are kept for the projects whose indexes asked last (trackRows), each up to MAX_LOGGED_ROWS ids (the
// oldest changes out first): past them, an index rebuilds rather than apply its changed rows.
const MAX_TRACKED_PROJECTS = 64;
const MAX_LOGGED_ROWS = 2_000;

/** What the process knows of one project's changes: its tables' versions and its writes through this process. */
interface ProjectChanges {
  /** Unique in the process: a project whose record was dropped (see MAX_PROJECTS) starts again under a new serial. */
  serial: number;
  tables: Map<string, number>;
  writes: number;
  /** The changed rows of the tables an index applies incrementally (see trackRows), when tracked. */
  rowLogs?: Map<string, RowLog>;
}

// Projects whose changes are counted, the least recently read out: a dropped project's next record has a new
// serial, so what was cached at its old versions is stale, never wrongly fresh. About 200 bytes a project and table.
const MAX_PROJECTS = 20_000;

/**
 * What this process knows of changes since it started, per project: a version per (project, table) (bumped by
 * every table_changed notification naming the project, whichever process or statement wrote, and at once by this
 * process's own writes through `tableWritten`), a version per table for changes that name no project (TRUNCATE),
 * the project's writes through this process (`projectWritten`), and the number of times the change feed dropped
 * (notifications sent meanwhile were missed). Cached entries are served only while the versions they were
 * computed at are still current, so a write in one project never makes another project's entries stale.
 */
export class TableVersions {
  /** Changes that name no project: they concern every project. */
  private readonly everyProject = new Map<string, number>();
  private readonly projects = new Map<string, ProjectChanges>();
  private serials = 0;
  /** The projects whose row logs are kept, the least recently tracked first. */
  private readonly tracked = new Set<string>();
  /** Counts the listener's drops: a value computed across a drop may have missed a notification. */
  private drops = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly maxProjects = MAX_PROJECTS,
  ) {
    feed.on(TABLE_CHANGED, (payload) => {
      const { table, projectId, rows } = changeOf(payload);
      this.tableWritten(table, projectId);
      if (projectId !== undefined) this.logRows(projectId, table, rows ?? null);
    });
    feed.onLost(() => {
      this.drops += 1;
    });
  }

  /** Whether entries may be served: the change feed is receiving notifications right now. */
  get listening(): boolean {
    return this.feed.listening;
  }

  /**
   * The versions a value computed from `tables` of the project depends on (compare element by element); without
   * `projectWrites`, this process's writes to the project do not count (only the tables' own changes do).
   */
  versionsOf(projectId: string, tables: readonly string[], projectWrites: boolean): number[] {
    const project = this.projectChanges(projectId, true)!;
    const versions = [this.drops, project.serial, projectWrites ? project.writes : 0];
    for (const table of tables) versions.push((this.everyProject.get(table) ?? 0) + (project.tables.get(table) ?? 0));
    return versions;
  }

  /** How many writes of this process to the project committed (see projectWritten). */
  projectVersion(projectId: string): number {
    return this.projectChanges(projectId, true)!.writes;
  }

  /** Resolves true once every notification of what committed before the call has been counted (ChangeFeed.sync). */
  sync(): Promise<boolean> {
    return this.feed.sync();
  }

  /**
   * Resolves true once every notification of what committed before the call has been counted, in one shared round
   * trip (ChangeFeed.caughtUp); false when the feed is not listening. Awaited before a kept value is served.
   */
  caughtUp(): Promise<boolean> {
    return this.feed.caughtUp();
  }

  /**
   * Marks `table` changed for the project (undefined: for every project), as a notification does; a write of this
   * process calls it at once, before its notification arrives. A project nothing was read for is not recorded:
   * its first read starts it under a new serial.
   */
  tableWritten(table: string, projectId: string | undefined): void {
    if (projectId === undefined) {
      this.everyProject.set(table, (this.everyProject.get(table) ?? 0) + 1);
      return;
    }
    const project = this.projectChanges(projectId, false);
    if (project) project.tables.set(table, (project.tables.get(table) ?? 0) + 1);
  }

  /**
   * Starts (or keeps) a log of the ids of the project's rows of `table` that notifications name, so that an index
   * built now can apply later changes row by row (rowsChanged). Kept for the MAX_TRACKED_PROJECTS projects that
   * asked last, each up to MAX_LOGGED_ROWS ids.
   */
  trackRows(projectId: string, table: string): void {
    const project = this.projectChanges(projectId, true)!;
    this.tracked.delete(projectId);
    this.tracked.add(projectId);
    if (this.tracked.size > MAX_TRACKED_PROJECTS) {
      const oldest = this.tracked.values().next().value!;
      this.tracked.delete(oldest);
      this.projects.get(oldest)?.rowLogs?.clear();
    }
    project.rowLogs ??= new Map();
    if (!project.rowLogs.has(table))
      project.rowLogs.set(table, { from: this.tableVersion(project, table), changes: [], size: 0 });
  }

  /**
   * The ids of the project's rows of `table` changed between two of its versions (after `from`, up to `to`), when
   * every change between them named its rows and was logged (trackRows began before `from`); otherwise undefined.
   */
  rowsChanged(projectId: string, table: string, from: number, to: number): string[] | undefined {
    const log = this.projects.get(projectId)?.rowLogs?.get(table);
    if (!log || log.from > from) return undefined;
    const rows = new Set<string>();
    let changes = 0;
    for (const change of log.changes) {
      if (change.version <= from || change.version > to) continue;
      if (change.rows === null) return undefined;
      changes++;
      for (const row of change.rows) rows.add(row);
    }
    // A version without its change logged (a TRUNCATE, which names no project) cannot be applied by rows.
    return changes === to - from ? [...rows] : undefined;
  }

  private logRows(projectId: string, table: string, rows: string[] | null): void {
    const project = this.projects.get(projectId);
    const log = project?.rowLogs?.get(table);
    if (!project || !log) return;
    log.changes.push({ version: this.tableVersion(project, table), rows });
    log.size += rows?.length ?? 0;
    while (log.size > MAX_LOGGED_ROWS) {
      const oldest = log.changes.shift()!;
      log.size -= oldest.rows?.length ?? 0;
      log.from = oldest.version;
    }
  }

  private tableVersion(project: ProjectChanges, table: string): number {
    return (this.everyProject.get(table) ?? 0) + (project.tables.get(table) ?? 0);
  }

  /** Marks every value of the project stale that counts the project's writes (a write of this process committed). */
  projectWritten(projectId: string): void {
    this.projectChanges(projectId, true)!.writes += 1;
  }

  /** The projects whose changes are recorded now (tests, metrics). */
  get projectCount(): number {
    return this.projects.size;
  }

  /** The project's record; created (under a new serial) when `create`, the least recently read dropped past the bound. */
  private projectChanges(projectId: string, create: boolean): ProjectChanges | undefined {
    let project = this.projects.get(projectId);
    if (project) {
      if (create) {
        this.projects.delete(projectId); // most recently read last
        this.projects.set(projectId, project);
      }
      return project;
    }
    if (!create) return undefined;
    project = { serial: ++this.serials, tables: new Map(), writes: 0 };
    this.projects.set(projectId, project);
    if (this.projects.size > this.maxProjects) this.projects.delete(this.projects.keys().next().value!);
    return project;
  }
}
