import { LRUCache } from 'lru-cache';
import type { Tx, Database } from '../../db/client.js';
import type { ApiKey, Project } from '../../generated/prisma/client.js';
import { ChangeFeed } from '../../shared/change-feed.js';
import type { Logger } from '../../shared/logger.js';
import { notifyChannel } from './platform.sql.js';

export type KeyWithProject = ApiKey & { project: Project };
type Subject = `key:${string}` | `project:${string}`;
/** When a read of a key began: the listener's connection and the changes heard until then. */
export interface ReadStart {
  connection: number;
  evictions: number;
}

const CHANNEL = 'auth_changed';
// Bounds staleness should a notification ever be missed while the listener looks healthy.
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** Tells every process (on commit of the caller's transaction) that a key or a project changed. */
export async function notifyAuthChanged(db: Database | Tx, subject: Subject): Promise<void> {
  await notifyChannel(db, CHANNEL, subject);
}

/**
 * API keys with their projects, cached per process so authentication costs no query. Entries are only
 * served while this process listens for auth_changed notifications: revocations and project changes
 * made by any process evict them on commit. Without the listener the cache is empty and bypassed. Its
 * change feed (one LISTEN connection) also serves the table-version caches (`deps.caches`).
 */
export class AuthCache {
  // ttlResolution 0: lru-cache reads the clock on each check instead of caching it behind a timer per read.
  private readonly entries = new LRUCache<string, KeyWithProject>({ max: MAX_ENTRIES, ttl: TTL_MS, ttlResolution: 0 });
  /** Changes heard (evict() calls): a read that began before one may hold what it made stale. */
  private evictions = 0;
  /** The process's LISTEN connection, shared with the other caches that need notifications. */
  readonly feed: ChangeFeed;

  constructor(databaseUrl: string, log: Logger, options: { reconnectMs?: number } = {}) {
    this.feed = new ChangeFeed(databaseUrl, log, options.reconnectMs);
    this.feed.on(CHANNEL, (payload) => this.evict(payload as Subject));
    this.feed.onLost(() => this.entries.clear());
  }

  /** Whether the listener is connected, i.e. entries are cached and served. */
  get listening(): boolean {
    return this.feed.listening;
  }

  /** The cached key for a token hash, when the cache is live and the entry fresh. */
  get(tokenHash: string): KeyWithProject | undefined {
    if (!this.feed.listening) return undefined;
    return this.entries.get(tokenHash);
  }

  /** What to pass to set() for a value about to be read from the database (see ChangeFeed.connection). */
  readBegins(): ReadStart | undefined {
    const connection = this.feed.connection;
    return connection === undefined ? undefined : { connection, evictions: this.evictions };
  }

  /**
   * Caches a value read since `readBegan` (readBegins()), unless the listener dropped or reconnected since, or a
   * key or project changed since: the read may predate that change, whose eviction found nothing to drop yet.
   */
  set(tokenHash: string, value: KeyWithProject, readBegan: ReadStart | undefined): void {
    if (readBegan === undefined || readBegan.connection !== this.feed.connection) return;
    if (readBegan.evictions !== this.evictions) return;
    this.entries.set(tokenHash, value);
  }

  /** Drops what a change to this key or project makes stale. */
  evict(subject: Subject): void {
    this.evictions += 1;
    const [kind, id] = subject.split(':');
    const stale = [...this.entries.entries()].filter(
      ([, value]) => (kind === 'key' && value.id === id) || (kind === 'project' && value.projectId === id),
    );
    for (const [hash] of stale) this.entries.delete(hash);
  }

  /** Connects the listener (and reconnects it when it drops); until it listens, nothing is cached. After close() it does nothing. */
  async start(): Promise<void> {
    await this.feed.start();
  }

  /** Stops listening and cancels a pending reconnect; the cache stays off from then on. */
  async close(): Promise<void> {
    await this.feed.close();
  }
}
