import { PrismaPg } from '@prisma/adapter-pg';
import { CONNECT_TIMEOUT_MS } from './availability.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';

export type Database = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Prisma.TransactionClient;

/**
 * A Prisma client over node-postgres for the given URL. Getting a connection (a new one, or a free one from a
 * busy pool) fails after CONNECT_TIMEOUT_MS, so an unreachable database answers 503 within a bounded time;
 * TCP keep-alive notices a server that vanished without closing the connection. Connections dropped by the
 * server (a restart) leave the pool on their error and are replaced on the next request.
 */
export function createDatabase(url: string, poolSize = 10): Database {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: 10_000 }),
  });
}
