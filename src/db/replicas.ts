import { createDatabase, poolOf, type Database } from './client.js';
import { isDatabaseUnavailable } from './availability.js';

/**
 * Reads that tolerate lag, routed to streaming replicas (DATABASE_REPLICA_URL), with read-your-writes for the
 * writer: after a write to a project, this process reads that project from the primary until a replica has
 * replayed past the write's WAL position (the way GitLab's database load balancer sticks to the primary by LSN).
 *
 * One timer per process polls every POLL_MS: the primary's `pg_current_wal_lsn()` and each replica's
 * `pg_last_wal_replay_lsn()`; no request waits for either. A written project is first pending (read from the
 * primary); the next poll that starts after the write gives it that poll's primary position, which is at or past
 * the write's commit. A replica serves the project once its polled replay position reaches that. A replica is in
 * rotation while its last poll answered within POLL_TIMEOUT_MS and it lags at most `maxLagMs` (how long ago the
 * primary held the oldest position it has not replayed); one that fails a read or a poll is out until a poll
 * finds it healthy again. Without a replica in rotation every read goes to the primary.
 */

// How often positions are read: a write's project reads from the primary for about one to two of these beyond the
// replica's real replay delay, and each process sends one tiny query per replica and one to the primary per period.
export const POLL_MS = 200;
// A replica whose position query takes longer is treated as failed (a hung host, a full disk).
const POLL_TIMEOUT_MS = 1_000;

/** A replica as the router sees it. */
export interface Replica {
  /** `host:port/database` of its URL (no credentials): the metrics' label. */
  readonly name: string;
  readonly db: Database;
}

/** Where one read goes: a replica, or the primary and why. */
export type ReadRoute =
  | { target: 'replica'; replica: Replica; db: Database }
  | { target: 'primary'; reason: 'written' | 'no_replica' | 'token'; db: Database };

/** A replica's state for the metrics. */
export interface ReplicaStatus {
  name: string;
  inRotation: boolean;
  /** Seconds behind the primary at the last poll; undefined until a poll answered. */
  lagSeconds: number | undefined;
}

interface ReplicaState extends Replica {
  /** Replay position at the last poll that answered (a lower bound of where it is now). */
  replayed: bigint;
  healthy: boolean;
  lagMs: number | undefined;
}

/** A WAL position `X/Y` (a consistency token) as a number. */
export const lsn = (text: string): bigint => {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

/** `host:port/database` of a PostgreSQL URL, without user or password. */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// On a server that is not in recovery (a replica URL that points at a primary, or a promoted replica) its own
// position counts as replayed.
const REPLAYED =
  'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn';

// The insert position is at or past the end of every committed transaction's WAL, even with synchronous_commit
// off (the flush position may trail it then); replicas receive only flushed WAL, so lag is measured against that.
const PRIMARY_POSITION = 'SELECT pg_current_wal_insert_lsn()::text AS position';

const PRIMARY_POSITIONS =
  'SELECT pg_current_wal_insert_lsn()::text AS inserted, pg_current_wal_flush_lsn()::text AS flushed';

// WAL pages (XLOG_BLCKSZ, 8 kB unless PostgreSQL was built otherwise) begin with a header of 24 bytes, 40 on a
// segment's first page.
const WAL_PAGE = 8192n;
const PAGE_HEADERS = new Set([24n, 40n]);

/**
 * The position every transaction committed so far ends at or before. The insert position, except on an idle
 * primary whose next record would start a page: it then points past that page's header, where no replica's
 * replay position ever lands, while everything before it is flushed up to the page's start.
 */
function committedUpTo(inserted: bigint, flushed: bigint): bigint {
  return flushed % WAL_PAGE === 0n && PAGE_HEADERS.has(inserted - flushed) ? flushed : inserted;
}

// Projects whose last change is remembered by number (see ReplicaSet.changed): about 100 bytes each.
const MAX_CHANGED_PROJECTS = 20_000;

export class ReplicaSet {
  private readonly replicas: ReplicaState[];
  /** Projects this process wrote that some replica may not have replayed: undefined position = not yet known. */
  private readonly written = new Map<string, { mark: number; position: bigint | undefined }>();
  private marks = 0;
  /** Every written position below this was forgotten; a replica serves nothing until it has replayed it. */
  private floor = 0n;
  /** The primary's position at recent polls, oldest first: how long ago it held what a replica lacks. */
  private samples: Array<{ at: number; position: bigint }> = [];
  /**
   * Table changes heard, numbered: the number of each project's last (bounded, the least recent out: a project not
   * found counts as changed at `forgottenUpTo`), of the last that named no project, the number the primary's
   * position was last read after, and that position (it covers every change numbered up to there).
   */
  private changes = 0;
  private readonly projectChanges = new Map<string, number>();
  private forgottenUpTo = 0;
  private everyProjectChange = 0;
  private changesCovered = 0;
  private changesPosition = 0n;
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly primary: Database,
    urls: readonly string[],
    private readonly options: { maxLagMs: number; poolSize?: number; onUnavailable?: (name: string) => void },
  ) {
    this.replicas = urls.map((url) => ({
      name: replicaName(url),
      db: createDatabase(url, options.poolSize),
      replayed: 0n,
      healthy: false,
      lagMs: undefined,
    }));
  }

  /** Polls once (so a healthy replica serves from the first request on), then every POLL_MS until stop(). */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => {
      this.polling ??= this.poll().finally(() => (this.polling = undefined));
    }, POLL_MS);
    this.timer.unref();
  }

  /** Stops polling and closes the replicas' pools. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await Promise.all(this.replicas.map((replica) => replica.db.$disconnect()));
  }

  /** Marks a write of this process to the project (call once it committed): its reads stay on the primary until replayed. */
  wrote(projectId: string): void {
    this.marks += 1;
    this.written.set(projectId, { mark: this.marks, position: undefined });
  }

  /** The primary's WAL insert position now, as `X/Y`: at or past the end of every transaction committed before the call. */
  async primaryPosition(): Promise<string> {
    const [row] = await this.primary.$queryRawUnsafe<Array<{ position: string }>>(PRIMARY_POSITION);
    return row.position;
  }

  /**
   * Marks a change notified for the project (undefined: every project): the project's cached values are kept from
   * replicas that have replayed it, other projects' as before.
   */
  changed(projectId: string | undefined): void {
    this.changes += 1;
    if (projectId === undefined) {
      this.everyProjectChange = this.changes;
      return;
    }
    this.projectChanges.delete(projectId);
    this.projectChanges.set(projectId, this.changes);
    if (this.projectChanges.size > MAX_CHANGED_PROJECTS) {
      const [oldest, number] = this.projectChanges.entries().next().value!;
      this.projectChanges.delete(oldest);
      this.forgottenUpTo = Math.max(this.forgottenUpTo, number);
    }
  }

  /**
   * Where a read of the project goes now: a replica in rotation that has replayed this process's writes to it and
   * the client's consistency token (`atLeast`, a WAL position), else the primary at once (no wait).
   */
  route(projectId: string, atLeast = 0n): ReadRoute {
    const written = this.written.get(projectId);
    if (written && written.position === undefined) return { target: 'primary', reason: 'written', db: this.primary };
    const mine = written?.position ?? 0n;
    const needed = mine > atLeast ? mine : atLeast;
    const serving = this.replicas.filter((replica) => this.inRotation(replica));
    const ready = serving.filter((replica) => replica.replayed >= needed);
    if (ready.length === 0) {
      const reason =
        serving.length === 0 ? 'no_replica' : serving.some((r) => r.replayed >= mine) ? 'token' : 'written';
      return { target: 'primary', reason, db: this.primary };
    }
    const replica = ready[this.next++ % ready.length];
    return { target: 'replica', replica, db: replica.db };
  }

  /**
   * Whether a value of the project read from `replica` from now on is as current as the primary for every change
   * of it this process has heard of (so a cache may keep it): none notified since the last poll, and the replica
   * past that poll. Other projects' changes do not count.
   */
  current(replica: Replica, projectId: string): boolean {
    const state = replica as ReplicaState;
    const last = Math.max(this.everyProjectChange, this.projectChanges.get(projectId) ?? this.forgottenUpTo);
    return last <= this.changesCovered && state.replayed >= this.changesPosition;
  }

  /** Takes a replica whose read failed (connection lost, timed out) out of rotation until a poll finds it healthy. */
  failed(replica: Replica, error: unknown): boolean {
    const recoveryConflict = /conflict with recovery/i.test(String((error as Error | undefined)?.message ?? ''));
    if (!isDatabaseUnavailable(error) && !recoveryConflict) return false;
    const state = replica as ReplicaState;
    if (state.healthy) this.options.onUnavailable?.(state.name);
    state.healthy = false;
    return true;
  }

  /** Each replica's rotation and lag, for the metrics. */
  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      inRotation: this.inRotation(replica),
      lagSeconds: replica.lagMs === undefined ? undefined : replica.lagMs / 1000,
    }));
  }

  private inRotation(replica: ReplicaState): boolean {
    return (
      replica.healthy &&
      replica.lagMs !== undefined &&
      replica.lagMs <= this.options.maxLagMs &&
      replica.replayed >= this.floor
    );
  }

  /** One round: the primary's position first (it then covers every write marked before), then each replica's. */
  private async poll(): Promise<void> {
    const marked = this.marks;
    const changes = this.changes;
    const at = Date.now();
    let position: bigint;
    let flushed: bigint;
    try {
      const [row] = await withTimeout(
        this.primary.$queryRawUnsafe<Array<{ inserted: string; flushed: string }>>(PRIMARY_POSITIONS),
        POLL_TIMEOUT_MS,
      );
      flushed = lsn(row.flushed);
      position = committedUpTo(lsn(row.inserted), flushed);
    } catch {
      return; // the primary does not answer: nothing new is known, and requests find out for themselves
    }
    for (const entry of this.written.values())
      if (entry.position === undefined && entry.mark <= marked) entry.position = position;
    this.changesCovered = changes;
    this.changesPosition = position;
    this.samples.push({ at, position: flushed });
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
    const horizon = at - 2 * this.options.maxLagMs - POLL_MS;
    while (this.samples.length > 1 && this.samples[0].at < horizon) this.samples.shift();
    this.forgetReplayed();
  }

  private async pollReplica(replica: ReplicaState): Promise<void> {
    const pool = poolOf(replica.db);
    try {
      if (!pool) throw new Error('the replica pool is closed');
      const { rows } = await withTimeout(pool.query<{ lsn: string | null }>(REPLAYED), POLL_TIMEOUT_MS);
      if (!rows[0]?.lsn) throw new Error('the replica has replayed nothing yet');
      replica.replayed = lsn(rows[0].lsn);
      // Behind by the age of the oldest primary position it has not replayed (0 when it has them all).
      const missing = this.samples.find((sample) => sample.position > replica.replayed);
      replica.lagMs = missing ? Date.now() - missing.at : 0;
      replica.healthy = true;
    } catch {
      if (replica.healthy) this.options.onUnavailable?.(replica.name);
      replica.healthy = false;
    }
  }

  /** Forgets written projects every replica in rotation has replayed; the floor keeps the others from serving them. */
  private forgetReplayed(): void {
    const serving = this.replicas.filter((replica) => this.inRotation(replica));
    const least = serving.reduce<bigint | undefined>(
      (min, replica) => (min === undefined || replica.replayed < min ? replica.replayed : min),
      undefined,
    );
    for (const [projectId, entry] of this.written) {
      if (entry.position === undefined) continue;
      if (least !== undefined && entry.position > least) continue;
      if (entry.position > this.floor) this.floor = entry.position;
      this.written.delete(projectId);
    }
  }
}
