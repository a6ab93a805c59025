import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';

export type Database = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Prisma.TransactionClient;

/** A Prisma client over node-postgres for the given URL. */
export function createDatabase(url: string, poolSize = 10): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: poolSize }) });
}
