import type { Database, Tx } from '../../db/client.js';

/** The platform area's hand-written statement (tagged raw SQL, values bound). */

/** Sends `payload` on `channel` to every listening process when the caller's transaction commits (at once without one). */
export async function notifyChannel(db: Database | Tx, channel: string, payload: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
}
