import { Prisma } from '../generated/prisma/client.js';

/** A nullable JSON column value as Prisma writes it: SQL NULL for null (Prisma needs DbNull for that). */
export const jsonColumn = (value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull =>
  value === null || value === undefined ? Prisma.DbNull : value;
