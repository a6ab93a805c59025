import pg from 'pg';
import type { Logger } from '../../shared/logger.js';

/** The channel a transaction that queues deliveries to be sent now notifies (delivered on its commit). */
export const WAKE_CHANNEL = 'webhook_wake';
const RECONNECT_MS = 1_000;

/**
 * Calls `onWake` whenever a committed transaction queued deliveries to be sent now, in any process,
 * through LISTEN on a connection of its own (reconnected when it drops; callers poll as well, so a gap
 * only slows delivery down).
 */
export class WakeListener {
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onWake: () => void,
  ) {}

  /** Connects and listens; failures are logged and retried, never thrown. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      if (this.closed) return;
      this.log.warn('webhook wake-up listener lost; polling until it reconnects', { error: error?.message });
      setTimeout(() => void this.start(), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === WAKE_CHANNEL) this.onWake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
    } catch (error) {
      lost(error as Error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
