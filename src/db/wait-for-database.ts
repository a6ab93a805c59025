import { types } from 'node:util';
import pg from 'pg';
import { isDatabaseUnavailable } from './availability.js';

/** The database of DATABASE_URL cannot be used: the message says why and what to check, never the password. */
export class DatabaseStartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseStartupError';
  }
}

/** `user@host:port/database` of a PostgreSQL URL, for messages (no password). */
export function describeDatabase(url: string): string {
  try {
    const { username, hostname, port, pathname } = new URL(url);
    return `${username ? `${decodeURIComponent(username)}@` : ''}${hostname}:${port || 5432}${pathname || '/'}`;
  } catch {
    return 'DATABASE_URL (not a valid URL)';
  }
}

/**
 * Resolves once PostgreSQL at `url` accepts a connection. While it cannot be reached (refused, not started yet,
 * starting up) it tries again every second for `seconds`, calling `waiting` once; then, or at once for refused
 * credentials or a missing database, throws DatabaseStartupError. So a server started before its database (one
 * compose file, a rebooting host) comes up when the database does, and a wrong DATABASE_URL says so in one line.
 */
export async function waitForDatabase(url: string, seconds: number, waiting: (message: string) => void): Promise<void> {
  const where = describeDatabase(url);
  const deadline = Date.now() + seconds * 1000;
  let told = false;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      const code = (error as { code?: string }).code;
      const reason = types.isNativeError(error) ? error.message : String(error);
      if (code === '28P01' || code === '28000') {
        throw new DatabaseStartupError(`PostgreSQL at ${where} refused the credentials in DATABASE_URL (${reason}).`, {
          cause: error,
        });
      }
      if (code === '3D000') {
        throw new DatabaseStartupError(
          `PostgreSQL at ${where} has no such database (${reason}). Create it, or fix the database name in DATABASE_URL.`,
          { cause: error },
        );
      }
      if (!isDatabaseUnavailable(error) || Date.now() >= deadline) {
        throw new DatabaseStartupError(
          `PostgreSQL at ${where} did not accept a connection${seconds > 0 ? ` within ${seconds} s` : ''} (${reason}). Check DATABASE_URL, or start PostgreSQL.`,
          { cause: error },
        );
      }
      if (!told) waiting(`Waiting up to ${seconds} s for PostgreSQL at ${where} (${reason})...`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
