/**
 * Which statements that a transaction-mode pooler changes each test file makes PostgreSQL run
 * (TEST_POOLER_RECORD=<file>): `.ci/run` runs the fast project with it, then again behind PgBouncer the files that
 * together run every recorded statement (tests/setup/pooler-cover.ts), so a new statement joins that pass by what
 * a test makes the app do, not by being listed.
 *
 * The rule: a statement of a file's run (the app's, its workers' or its own) is recorded when it is
 * - a named prepared statement (`name` set: src/db/prepared.ts, src/db/round-trip.ts), which runs unnamed on a
 *   pooled DATABASE_URL, or
 * - a statement that sets or reads state of the server session rather than of the transaction: SET or RESET
 *   without LOCAL, set_config(..., false), session advisory locks, PREPARE / EXECUTE / DEALLOCATE / DISCARD,
 *   cursors WITH HOLD, temporary tables, currval() or lastval().
 * LISTEN and UNLISTEN are left out: the change feed and the webhook wake-ups always listen on the session URL
 * (DATABASE_DIRECT_URL), in the pooled pass too, so they decide nothing. Unnamed statements inside or outside
 * transactions (Prisma's CRUD, `SET LOCAL`, `pg_advisory_xact_lock`) behave the same through PgBouncer in
 * transaction mode (docs/deploy.md, "PgBouncer in transaction mode") and are not recorded.
 *
 * pg is loaded once per jest worker (tests/setup/shared-packages-runtime.cjs), so wrapping its Client's query
 * once sees every connection of every file the worker runs.
 */
import { createHash } from 'node:crypto';
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

/**
 * The statement by which a pg query config (text, object or submittable) depends on the server session, by the rule
 * above: its text with whitespace folded (a named statement's text, or its name when it has none), or undefined.
 */
export function poolerSensitiveStatement(config: unknown): string | undefined {
  if (typeof config === 'string') return SESSION_STATE.test(config) ? folded(config) : undefined;
  if (config === null || typeof config !== 'object') return undefined;
  const { name, text } = config as { name?: unknown; text?: unknown };
  const named = typeof name === 'string' && name !== '';
  if (typeof text === 'string') return named || SESSION_STATE.test(text) ? folded(text) : undefined;
  return named ? `name ${name}` : undefined;
}

const folded = (text: string) => text.replace(/\s+/g, ' ').trim();

// TEST_POOLER_RECORD=<file>: each test file appends one line per distinct pooler-sensitive statement it made run,
// `<path>\t<seconds the file took>\t<statement digest>`; tests/setup/pooler-cover.ts picks the files to run again.
const record = process.env.TEST_POOLER_RECORD;
if (record) {
  const PROBE = Symbol.for('commerce-api.tests.pooler-probe');
  type Probed = { [PROBE]?: { statements: Set<string> } };
  const prototype = pg.Client.prototype as unknown as Probed & { query: (...args: unknown[]) => unknown };
  if (!prototype[PROBE]) {
    const state = { statements: new Set<string>() };
    const query = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      const statement = poolerSensitiveStatement(args[0]);
      if (statement !== undefined) state.statements.add(statement);
      return query.apply(this, args);
    };
    prototype[PROBE] = state;
  }
  const state = prototype[PROBE];
  let started = 0;
  beforeAll(() => {
    state.statements.clear();
    started = performance.now();
  });
  afterAll(() => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const lines = [...state.statements].map(
      (statement) =>
        `${expect.getState().testPath}\t${seconds}\t${createHash('sha1').update(statement).digest('hex')}\n`,
    );
    if (lines.length > 0) appendFileSync(record, lines.join(''));
  });
}
