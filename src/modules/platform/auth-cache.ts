import pg from 'pg';
import type { Tx, Database } from '../../db/client.js';
import type { ApiKey, Project } from '../../generated/prisma/client.js';
import type { Logger } from '../../shared/logger.js';

export type KeyWithProject = ApiKey & { project: Project };
type Subject = `key:${string}` | `project:${string}`;

const CHANNEL = 'auth_changed';
// Bounds staleness should a notification ever be missed while the listener looks healthy.
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

/** Tells every process (on commit of the caller's transaction) that a key or a project changed. */
export async function notifyAuthChanged(db: Database | Tx, subject: Subject): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${CHANNEL}, ${subject})`;
}

/**
 * API keys with their projects, cached per process so authentication costs no query. Entries are only
 * served while this process listens for auth_changed notifications: revocations and project changes
 * made by any process evict them on commit. Without the listener the cache is empty and bypassed.
 */
export class AuthCache {
  private readonly entries = new Map<string, { value: KeyWithProject; expires: number }>();
  private client: pg.Client | undefined;
  private isListening = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly reconnectMs: number;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    options: { reconnectMs?: number } = {},
  ) {
    this.reconnectMs = options.reconnectMs ?? RECONNECT_MS;
  }

  /** Whether the listener is connected, i.e. entries are cached and served. */
  get listening(): boolean {
    return this.isListening;
  }

  /** The cached key for a token hash, when the cache is live and the entry fresh. */
  get(tokenHash: string): KeyWithProject | undefined {
    if (!this.isListening) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry || entry.expires < Date.now()) return undefined;
    return entry.value;
  }

  set(tokenHash: string, value: KeyWithProject): void {
    if (!this.isListening) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { value, expires: Date.now() + TTL_MS });
  }

  /** Drops what a change to this key or project makes stale. */
  evict(subject: Subject): void {
    const [kind, id] = subject.split(':');
    for (const [hash, { value }] of this.entries) {
      if ((kind === 'key' && value.id === id) || (kind === 'project' && value.projectId === id)) this.entries.delete(hash);
    }
  }

  /**
   * Connects the listener (and reconnects it when it drops); until it listens, nothing is cached. After
   * close() it does nothing.
   */
  async start(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.isListening = false;
      this.entries.clear();
      this.client = undefined;
      client.end().catch(() => {});
      if (this.closed) return;
      this.log.warn('auth cache listener lost; cache off until it reconnects', { error: error?.message });
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        void this.start().catch(() => {}); // a failed attempt schedules the next one itself
      }, this.reconnectMs);
      this.reconnectTimer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) this.evict(message.payload as Subject);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
    // close() (or a drop) may have come while connecting; then this client is no longer the listener.
    if (this.client === client) this.isListening = true;
  }

  /** Stops listening and cancels a pending reconnect; the cache stays off from then on. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.isListening = false;
    this.entries.clear();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
