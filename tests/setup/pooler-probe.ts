/**
 * Which test files reach PostgreSQL through a path a transaction-mode pooler changes (TEST_POOLER_RECORD=<file>):
 * `.ci/run` runs the fast project with it, then only the recorded files again behind PgBouncer, so a new test
 * file joins that pass by what it makes the app do, not by being listed.
 *
 * The rule: a file is recorded when any statement of its run (the app's, its workers' or its own) is
 * - a named prepared statement (`name` set: src/db/prepared.ts, src/db/round-trip.ts), which runs unnamed on a
 *   pooled DATABASE_URL, or
 * - a statement that sets or reads state of the server session rather than of the transaction: SET or RESET
 *   without LOCAL, set_config(..., false), session advisory locks, PREPARE / EXECUTE / DEALLOCATE / DISCARD,
 *   cursors WITH HOLD, temporary tables, currval() or lastval().
 * LISTEN and UNLISTEN are left out: the change feed and the webhook wake-ups always listen on the session URL
 * (DATABASE_DIRECT_URL), in the pooled pass too, so they decide nothing. A file that only runs unnamed statements
 * inside or outside transactions (Prisma's CRUD, `SET LOCAL`, `pg_advisory_xact_lock`) behaves the same
 * through PgBouncer in transaction mode (docs/deploy.md, "PgBouncer in transaction mode") and is not recorded.
 *
 * pg is loaded once per jest worker (tests/setup/shared-packages-runtime.cjs), so wrapping its Client's query
 * once sees every connection of every file the worker runs.
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from '@jest/globals';
import pg from 'pg';

const SESSION_STATE = new RegExp(
  [
    String.raw`^\s*(SET|RESET)\s+(?!LOCAL\b|TRANSACTION\b)`,
    String.raw`\bset_config\s*\([^)]*,\s*false\s*\)`,
    String.raw`\bpg_(try_)?advisory_lock(_shared)?\s*\(`,
    String.raw`^\s*(PREPARE|EXECUTE|DEALLOCATE|DISCARD)\b`,
    String.raw`\bWITH\s+HOLD\b`,
    String.raw`\bCREATE\s+(TEMP|TEMPORARY)\s`,
    String.raw`\b(currval|lastval)\s*\(`,
  ].join('|'),
  'i',
);

/** Whether a pg query config (text, object or submittable) depends on the server session, by the rule above. */
export function poolerSensitive(config: unknown): boolean {
  if (typeof config === 'string') return SESSION_STATE.test(config);
  if (config === null || typeof config !== 'object') return false;
  const { name, text } = config as { name?: unknown; text?: unknown };
  return (typeof name === 'string' && name !== '') || (typeof text === 'string' && SESSION_STATE.test(text));
}

const record = process.env.TEST_POOLER_RECORD;
if (record) {
  const PROBE = Symbol.for('commerce-api.tests.pooler-probe');
  type Probed = { [PROBE]?: { seen: boolean } };
  const prototype = pg.Client.prototype as unknown as Probed & { query: (...args: unknown[]) => unknown };
  if (!prototype[PROBE]) {
    const state = { seen: false };
    const query = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      if (!state.seen && poolerSensitive(args[0])) state.seen = true;
      return query.apply(this, args);
    };
    prototype[PROBE] = state;
  }
  const state = prototype[PROBE];
  beforeAll(() => {
    state.seen = false;
  });
  afterAll(() => {
    if (state.seen) appendFileSync(record, `${expect.getState().testPath}\n`);
  });
}
