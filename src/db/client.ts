import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS } from './availability.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';

export type Database = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Prisma.TransactionClient;

// The node-postgres pool under each client createDatabase made, for the prepared statements of src/db/prepared.ts.
const pools = new WeakMap<object, pg.Pool>();
// The pools whose connections are sessions of their own (no transaction-mode pooler between): named statements allowed.
const sessionPools = new WeakSet<pg.Pool | pg.PoolClient>();

/**
 * The URL with every session in UTC, whatever the server's or database's TimeZone: Prisma's pg adapter sends
 * timestamps without an offset and reads them back without converting (prisma/orm#26786), so in any other zone
 * its times would be shifted by the offset, and differ from the prepared statements' (node-postgres converts).
 * A startup option (added to the URL's own `options`, which would override a separate setting), not a query.
 */
function inUtc(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', [parsed.searchParams.get('options'), '-c TimeZone=UTC'].filter(Boolean).join(' '));
  return parsed.href;
}

/** Connections in a process's pool unless the caller says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * A Prisma client over node-postgres for the given URL. Getting a connection (a new one, or a free one from a
 * busy pool) fails after CONNECT_TIMEOUT_MS, so an unreachable database answers 503 within a bounded time;
 * TCP keep-alive notices a server that vanished without closing the connection. Connections dropped by the
 * server (a restart) leave the pool on their error and are replaced on the next request. `$disconnect` ends the pool.
 * Without `namedStatements` (a URL through a transaction-mode pooler, where consecutive statements may reach
 * different server sessions) the statements of src/db/prepared.ts run unnamed.
 * The connections are in node-postgres's pipeline mode: statements queued on one connection are written without
 * waiting for the answers before (the batches of src/db/round-trip.ts); a statement awaited before the next is sent,
 * as Prisma's adapter and everything else sends them, goes on the wire as without it (its own Parse/Bind/Execute/Sync).
 */
export function createDatabase(
  url: string,
  poolSize = DEFAULT_POOL_SIZE,
  options: { namedStatements?: boolean } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: inUtc(url),
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    pipeline: true,
  });
  // An idle connection the server dropped is replaced on the next request; without a listener its error would end the process.
  pool.on('error', () => {});
  // So is one checked out between two statements (a transaction's) when its server goes (a replica killed, a
  // failover): the pool listens to idle connections only. Its statements under way fail on their own, and the pool
  // drops the connection when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  if (options.namedStatements ?? true) sessionPools.add(pool);
  return db;
}

/**
 * The connection pool under `db` when it is a client createDatabase made; undefined for a transaction (or
 * anything wrapping one), whose statements must run on its own connection.
 */
export function poolOf(db: Database | Tx): pg.Pool | undefined {
  const pool = pools.get(db);
  // After $disconnect the pool is ended; a client used again reconnects through Prisma's own new pool.
  return pool && !pool.ending ? pool : undefined;
}

/** Whether `pool` keeps each connection's server session (named prepared statements survive between queries). */
export const keepsSessions = (pool: pg.Pool | pg.PoolClient): boolean => sessionPools.has(pool);

/** A connection of `pool` for a transaction of its own; its statements are named when the pool's are. */
export async function connectionOf(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  if (sessionPools.has(pool)) sessionPools.add(client);
  return client;
}
