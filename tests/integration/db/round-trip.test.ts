import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createDatabase, poolOf, type Database } from '../../../src/db/client.js';
import { commitWith, inTransaction } from '../../../src/db/client-transaction.js';
import { preparedStatement } from '../../../src/db/prepared.js';
import { GENERIC_PLANS } from '../../../src/db/round-trip.js';
import { createTestDatabase } from '../../setup/database.js';

// Statements of a transaction sent in one round trip (src/db/round-trip.ts): run in order, each with its own
// snapshot, the first failure aborting the transaction, so the rest and the COMMIT sent with them change nothing;
// one pool connection, so every batch
// and plain statement below shares a session (and its prepared statements).
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
let pool: pg.Pool;
let admin: pg.Client;

const insertNote = preparedStatement<{ id: number; text: string }>(
  'round_trip_test_insert',
  'INSERT INTO round_trip_notes (text) VALUES ($1) RETURNING id, text',
);
const countNotes = preparedStatement<{ n: number }>(
  'round_trip_test_count',
  'SELECT count(*)::int AS n FROM round_trip_notes',
);
const failing = preparedStatement<never>('round_trip_test_failing', 'SELECT 1 / (0 * $1::int) AS never');

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase(database.url, 1, { namedStatements: database.url === database.directUrl });
  pool = poolOf(db)!;
  admin = new pg.Client({ connectionString: database.directUrl });
  await admin.connect();
  await admin.query('CREATE TABLE round_trip_notes (id serial PRIMARY KEY, text text NOT NULL)');
  await admin.query(`CREATE TABLE round_trip_stock (id text PRIMARY KEY, units int NOT NULL)`);
  await admin.query(`INSERT INTO round_trip_stock VALUES ('a', 5), ('b', 5)`);
});
afterAll(async () => {
  await admin.end();
  await db.$disconnect();
  await database.drop();
});

const notes = async () => (await admin.query<{ text: string }>('SELECT text FROM round_trip_notes ORDER BY id')).rows;

describe('statements in one round trip', () => {
  test("BEGIN with the opening statements, COMMIT with the last ones: each statement's rows, in order, all committed", async () => {
    const answer = await inTransaction(
      pool,
      async (client, [first, counted]) => {
        expect(first.map((row) => row.text)).toEqual(['one']);
        // The count ran after the insert before it in the same batch, and sees it.
        expect(counted).toEqual([{ n: 1 }]);
        const [second, total] = await commitWith(client, [insertNote.with(['two']), countNotes.with([])]);
        return { second, total };
      },
      [insertNote.with(['one']), countNotes.with([])],
    );
    expect(answer.second.map((row) => row.text)).toEqual(['two']);
    expect(answer.total).toEqual([{ n: 2 }]);
    expect(await notes()).toEqual([{ text: 'one' }, { text: 'two' }]);
    // The named statements parsed in batches run again on the same session, in a batch and alone.
    expect(await countNotes(pool, [])).toEqual([{ n: 2 }]);
  });

  test('a failing statement skips the rest of its batch and the COMMIT: nothing of the transaction is written', async () => {
    await admin.query('TRUNCATE round_trip_notes');
    const attempt = inTransaction(
      pool,
      (client) => commitWith(client, [insertNote.with(['kept?']), failing.with([1]), insertNote.with(['after'])]),
      [insertNote.with(['opening'])],
    );
    await expect(attempt).rejects.toMatchObject({ code: '22012' });
    expect(await notes()).toEqual([]);
    // The connection went back to the pool outside any transaction, and its statements still run.
    expect(await countNotes(pool, [])).toEqual([{ n: 0 }]);
    await inTransaction(pool, (client) => commitWith(client, [insertNote.with(['later'])]));
    expect(await notes()).toEqual([{ text: 'later' }]);
  });

  test('a batch needs a pipelining connection in a transaction block', async () => {
    // The pool createDatabase makes pipelines: each connection writes queued statements without awaiting answers.
    const client = await pool.connect();
    try {
      expect(client.pipeline).toBe(true);
      // Outside a transaction block, one failure would not stop the statements after it.
      await expect(commitWith(client, [countNotes.with([])])).rejects.toThrow('transaction block');
    } finally {
      client.release();
    }
    const plain = new pg.Pool({ connectionString: database.directUrl, max: 1 });
    try {
      await expect(inTransaction(plain, async () => 1, [countNotes.with([])])).rejects.toThrow('pipeline mode');
    } finally {
      await plain.end();
    }
  });

  test('work that throws after the opening batch rolls the transaction back', async () => {
    await admin.query('TRUNCATE round_trip_notes');
    const attempt = inTransaction(pool, async () => {
      throw new Error('refused');
    }, [insertNote.with(['opening'])]);
    await expect(attempt).rejects.toThrow('refused');
    expect(await notes()).toEqual([]);
  });

  test('a read after a lock in the same batch sees the writes committed while the lock was awaited, also to rows it did not lock', async () => {
    const lock = preparedStatement<{ id: string }>(
      'round_trip_test_lock',
      `SELECT id FROM round_trip_stock WHERE id = 'a' FOR UPDATE`,
    );
    const units = preparedStatement<{ units: number }>(
      'round_trip_test_units',
      `SELECT units FROM round_trip_stock WHERE id = 'b'`,
    );
    await admin.query('BEGIN');
    await admin.query(`SELECT 1 FROM round_trip_stock WHERE id = 'a' FOR UPDATE`);
    const read = inTransaction(pool, async (_client, [, seen]) => seen, [lock.with([]), units.with([])]);
    // The batch waits on the lock; the write commits meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.query(`UPDATE round_trip_stock SET units = 2 WHERE id = 'b'`);
    await admin.query('COMMIT');
    expect(await read).toEqual([{ units: 2 }]);
  });

  test("commitWith's COMMIT does not wait for its WAL flush: its locks go once its commit record is written", async () => {
    const setting = preparedStatement<{ setting: string }>(
      'round_trip_test_sync_commit',
      `SELECT current_setting('synchronous_commit') AS setting`,
    );
    // The test cluster commits without flushing anyway: the transaction asks for synchronous commit first.
    const synchronous = { config: () => ({ text: 'SET LOCAL synchronous_commit = on' }) };
    const [before, [after]] = await inTransaction(
      pool,
      async (client, [, opened]) => [opened, await commitWith(client, [setting.with([])])] as const,
      [synchronous, setting.with([])],
    );
    expect(before).toEqual([{ setting: 'on' }]);
    expect(after).toEqual([{ setting: 'off' }]);
  });

  test('after GENERIC_PLANS, a statement of the transaction runs on its generic plan from its first run', async () => {
    const others = preparedStatement<{ n: number }>(
      'round_trip_test_generic',
      'SELECT count(*)::int AS n FROM round_trip_notes WHERE text <> $1',
    );
    await admin.query('TRUNCATE round_trip_notes');
    await admin.query(`INSERT INTO round_trip_notes (text) VALUES ('a'), ('b')`);
    for (let i = 0; i < 3; i++) {
      const counted = await inTransaction(pool, async (client) =>
        commitWith(client, [GENERIC_PLANS, others.with(['a'])]),
      );
      expect(counted[1]).toEqual([{ n: 1 }]);
    }
    const { rows } = await pool.query<{ generic_plans: number; custom_plans: number }>(
      `SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name = 'round_trip_test_generic'`,
    );
    // Behind PgBouncer the statements are unnamed: nothing is prepared in the session.
    expect(rows).toEqual(database.url === database.directUrl ? [{ generic_plans: 3, custom_plans: 0 }] : []);
  });

  test('a named statement is prepared once per connection in batches; its rows come typed and apart, alone and among others', async () => {
    const shaped = preparedStatement<{ big: bigint; at: Date; doc: unknown; tags: string[]; nothing: null; n: number }>(
      'round_trip_test_shape',
      `SELECT $1::int8 AS big, $2::timestamptz AS at, $3::jsonb AS doc, ARRAY['a', 'b'] AS tags, NULL::text AS nothing, n
       FROM generate_series(1, $4::int) AS n`,
    );
    const named = database.url === database.directUrl;
    // The pool's one connection's prepared statements of that name, and how often each ran.
    const prepared = async () =>
      (
        await pool.query<{ runs: number }>(
          `SELECT (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE name = 'round_trip_test_shape'`,
        )
      ).rows;
    const at = new Date('2026-11-28T07:00:00.123Z');
    const rows = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        big: 9007199254740993n,
        at,
        doc: { a: [1] },
        tags: ['a', 'b'],
        nothing: null,
        n: i + 1,
      }));
    const values = (count: number) => ['9007199254740993', at, JSON.stringify({ a: [1] }), count];

    const alone = async (count: number) =>
      (await inTransaction(pool, (opened) => commitWith(opened, [shaped.with(values(count))])))[0];
    expect(await alone(1)).toEqual(rows(1));
    expect(await alone(2)).toEqual(rows(2));
    // Behind PgBouncer the statement is unnamed, parsed on every run: nothing is prepared in the session.
    expect(await prepared()).toEqual(named ? [{ runs: 2 }] : []);

    await admin.query('TRUNCATE round_trip_notes');
    const batch = await inTransaction(pool, (opened) =>
      commitWith(opened, [
        shaped.with(values(2)),
        GENERIC_PLANS,
        insertNote.with(['shaped']),
        shaped.with(values(0)),
        countNotes.with([]),
        shaped.with(values(3)),
      ]),
    );
    expect(batch[0]).toEqual(rows(2));
    expect(batch[1]).toEqual([]);
    expect(batch[2].map((note) => note.text)).toEqual(['shaped']);
    expect(batch[3]).toEqual([]);
    expect(batch[4]).toEqual([{ n: 1 }]);
    expect(batch[5]).toEqual(rows(3));
    // Three more runs of the one prepared statement, in one batch.
    expect(await prepared()).toEqual(named ? [{ runs: 5 }] : []);
  });
});
