import { describe, expect, test } from '@jest/globals';
import { isDatabaseUnavailable } from '../../../src/db/availability.js';

// The shapes were taken from Prisma 7 with @prisma/adapter-pg against a PostgreSQL stopped and restarted under it.
const prismaError = (code: string, cause: Record<string, unknown>) =>
  Object.assign(new Error(`Invalid invocation: ${code}`), {
    code,
    meta: { driverAdapterError: { name: 'DriverAdapterError', cause } },
  });

describe('isDatabaseUnavailable', () => {
  test.each([
    [
      'server not reachable (P1001)',
      prismaError('P1001', { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 }),
    ],
    [
      'raw query on an unreachable server (P2010 with DatabaseNotReachable)',
      prismaError('P2010', { kind: 'DatabaseNotReachable' }),
    ],
    ['connection reset', prismaError('P2010', { kind: 'ConnectionClosed' })],
    [
      'shutting down / starting up (57P01, 57P03)',
      prismaError('P2010', { kind: 'postgres', code: '57P03', message: 'the database system is starting up' }),
    ],
    ['pool connect timeout (plain pg error)', new Error('timeout exceeded when trying to connect')],
    [
      'a connection that died in a transaction',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'a socket error in the cause chain',
      new Error('wrapped', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
    ],
  ])('%s: unavailable', (_, error) => expect(isDatabaseUnavailable(error)).toBe(true));

  test.each([
    ['a unique violation (P2002)', prismaError('P2002', { kind: 'UniqueConstraintViolation' })],
    ['a record not found (P2025)', Object.assign(new Error('not found'), { code: 'P2025' })],
    ['a syntax error', prismaError('P2010', { kind: 'postgres', code: '42601', message: 'syntax error' })],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error at all', 'oops'],
  ])('%s: not unavailable', (_, error) => expect(isDatabaseUnavailable(error)).toBe(false));
});
