import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from './logger.js';

const RECONNECT_MS = 1_000;
// The cheapest statement with an answer: what caughtUp() waits for (the notifications before it come first).
const ROUND_TRIP = 'SELECT 1';
// A listening connection that has not answered a query within this long is taken for dead (a peer that vanished
// without closing it): dropped and reconnected, caches off meanwhile, so no read waits on it longer.
const ANSWER_WITHIN_MS = 1_000;

/** The listening connection's application_name: how operators (and tests) find it in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION_NAME = 'commerce-api change feed';

// The channel sync() notifies itself on: its payload names the sync (a prefix of this feed's own, then a number).
export const SYNC_CHANNEL = 'change_feed_sync';

/**
 * One LISTEN connection per process for the notifications that keep per-process caches exact (auth
 * changes, table changes). `listening` is true only while the connection is up: caches serve entries only
 * then, and are cleared when it drops (they could miss notifications), so a lost listener costs speed,
 * never correctness. Reconnects by itself until close().
 */
export class ChangeFeed {
  private readonly handlers = new Map<string, Array<(payload: string) => void>>();
  private readonly lostHandlers: Array<() => void> = [];
  /** Syncs under way: each resolves (true) when its own notification comes back, or (false) when the connection drops. */
  private readonly syncs = new Map<string, (heard: boolean) => void>();
  private readonly syncPrefix = randomBytes(6).toString('hex');
  private syncCount = 0;
  /** The self-notification the next callers of sync() share, until it is sent. */
  private nextSync: Promise<boolean> | undefined;
  /** The round trip the next callers of caughtUp() share, until it is sent. */
  private nextRoundTrip: Promise<boolean> | undefined;
  /** The last query sent on the connection (settled when none runs): the next one goes out after it. */
  private sending: Promise<unknown> = Promise.resolve();
  private client: pg.Client | undefined;
  /** Drops the current connection as lost (set by start() for its client). */
  private drop: ((error?: Error) => void) | undefined;
  private isListening = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly reconnectMs = RECONNECT_MS,
  ) {
    this.on(SYNC_CHANNEL, (payload) => {
      this.syncs.get(payload)?.(true);
      this.syncs.delete(payload);
    });
    this.onLost(() => {
      for (const done of this.syncs.values()) done(false);
      this.syncs.clear();
    });
  }

  /**
   * Resolves true once every notification of the transactions that committed before it was called has been
   * handled (it notifies itself, and notifications arrive in commit order); false when the feed is not listening
   * or drops meanwhile. For caches that need to know whether a write this process just committed touched them.
   * One self-notification is sent at a time (node-postgres queues a query sent while another runs only under a
   * deprecation): callers that arrive while one is being sent share the next, which goes out after they called.
   */
  sync(): Promise<boolean> {
    if (!this.client || !this.isListening) return Promise.resolve(false);
    return (this.nextSync ??= this.inTurn(() => {
      this.nextSync = undefined;
      return this.notifySelf();
    }).then((sent) => sent.heard));
  }

  /**
   * Resolves true once every notification of the transactions that committed before it was called has been
   * handled; false when the feed is not listening or drops meanwhile. One query on the listening connection:
   * PostgreSQL delivers the notifications of what committed before a query was sent ahead of that query's result.
   * What a cached value is checked against before it is served (a write another process answered may still have
   * its notification on the way). Callers share one round trip: those that arrive while one is in flight share
   * the next (the one in flight may have been sent before their writes committed).
   */
  caughtUp(): Promise<boolean> {
    if (!this.client || !this.isListening) return Promise.resolve(false);
    return (this.nextRoundTrip ??= this.inTurn(() => {
      this.nextRoundTrip = undefined;
      return this.roundTrip();
    }));
  }

  /** Runs `send` once the query sent before has its answer (one query on the connection at a time). */
  private inTurn<V>(send: () => Promise<V>): Promise<V> {
    const turn = this.sending.then(send);
    this.sending = turn.catch(() => {});
    return turn;
  }

  /**
   * Sends one self-notification; once it is answered, `heard` resolves when it is heard (true) or cannot be
   * (false). The next query may go out as soon as this one is answered, without waiting for `heard`.
   */
  private async notifySelf(): Promise<{ heard: Promise<boolean> }> {
    const client = this.client;
    if (!client || !this.isListening) return { heard: Promise.resolve(false) };
    const name = `${this.syncPrefix}.${++this.syncCount}`;
    const heard = new Promise<boolean>((resolve) => this.syncs.set(name, resolve));
    if (!(await this.answered(client, 'SELECT pg_notify($1, $2)', [SYNC_CHANNEL, name]))) {
      this.syncs.delete(name);
      return { heard: Promise.resolve(false) };
    }
    return { heard };
  }

  /** Sends an empty statement; true once it is answered on the same, still listening connection. */
  private async roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client || !this.isListening) return false;
    const connection = this.connections;
    if (!(await this.answered(client, ROUND_TRIP))) return false;
    return this.isListening && this.connections === connection;
  }

  /**
   * Runs `sql` on the listening connection: true once answered; false when it fails, or when no answer comes within
   * ANSWER_WITHIN_MS, and then the connection is dropped as lost (so nothing queued behind it waits longer).
   */
  private async answered(client: pg.Client, sql: string, values?: unknown[]): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), ANSWER_WITHIN_MS);
    });
    const outcome = await Promise.race([
      client.query(sql, values).then(
        () => 'answered' as const,
        () => 'failed' as const,
      ),
      late,
    ]);
    clearTimeout(timer);
    if (outcome === 'late' && this.client === client) {
      this.drop?.(new Error(`the listening connection did not answer within ${ANSWER_WITHIN_MS} ms`));
    }
    return outcome === 'answered';
  }

  /** Whether notifications are being received right now. */
  get listening(): boolean {
    return this.isListening;
  }

  /**
   * Changes with every connect and every drop. A value read from the database may be cached only if the feed
   * listened when the read began and `connection` is still what it was then: a read that began before a
   * reconnect may predate a change whose notification was sent while nobody listened.
   */
  get connection(): number | undefined {
    return this.isListening ? this.connections : undefined;
  }
  private connections = 0;

  /** Calls `handler` with the payload of every notification on `channel` (register before start()). */
  on(channel: string, handler: (payload: string) => void): void {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** Calls `handler` whenever the connection drops: what was cached may have missed notifications. */
  onLost(handler: () => void): void {
    this.lostHandlers.push(handler);
  }

  /** Connects and listens (and reconnects when the connection drops); after close() it does nothing. */
  async start(): Promise<void> {
    if (this.closed) return;
    // keepAlive: a peer that vanished without closing the connection is noticed by the kernel too.
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      application_name: CHANGE_FEED_APPLICATION_NAME,
    });
    this.client = client;
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      const wasListening = this.isListening;
      this.isListening = false;
      this.connections += 1;
      this.client = undefined;
      for (const handler of this.lostHandlers) handler();
      client.end().catch(() => {});
      if (this.closed) return;
      // Once per outage, not once per failed reconnect attempt.
      if (wasListening)
        this.log.warn('change listener lost; caches off until it reconnects', { error: error?.message });
      else this.log.debug('change listener could not reconnect; retrying', { error: error?.message });
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        void this.start().catch(() => {}); // a failed attempt schedules the next one itself
      }, this.reconnectMs);
      this.reconnectTimer.unref();
    };
    this.drop = lost;
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
    // close() (or a drop) may have come while connecting; then this client is no longer the listener.
    if (this.client === client) {
      this.connections += 1;
      this.isListening = true;
      if (this.connections > 1) this.log.info('change listener reconnected; caches on again');
    }
  }

  /** Stops listening and cancels a pending reconnect; caches stay off from then on. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.isListening = false;
    for (const handler of this.lostHandlers) handler();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
