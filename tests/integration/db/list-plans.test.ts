import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createDatabase, poolOf, type Database } from '../../../src/db/client.js';
import { sql, sqlList } from '../../../src/shared/sql-list.js';
import { createTestDatabase } from '../../setup/database.js';
import { newestFirstPage } from '../../setup/pages.js';

// List pages (src/shared/sql-list.ts) on PostgreSQL's generic plan: a common page size is written into the statement,
// so PostgreSQL costs the generic plan for the rows the page reads and keeps it, instead of planning every page (it
// assumes a tenth of the table for `LIMIT $n`). One pool connection, so the statements are this session's.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
let pool: pg.Pool;
let named: boolean;

const items = sqlList<{ id: string; createdAt: Date }>('plan_test_items', 'plan_test_items', {
  id: 'id',
  createdAt: 'created_at',
});
const firstPage = (take: number) => items(db, [sql`project = ${'p1'}`]).fetch(newestFirstPage(take));

const statements = async () =>
  (
    await pool.query<{ statement: string; generic_plans: number; custom_plans: number }>(
      `SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements
       WHERE name LIKE 'list_plan_test_items%' ORDER BY prepare_time`,
    )
  ).rows;

beforeAll(async () => {
  database = await createTestDatabase();
  named = database.url === database.directUrl;
  db = createDatabase(database.url, 1, { namedStatements: named });
  pool = poolOf(db)!;
  const admin = new pg.Client({ connectionString: database.directUrl });
  await admin.connect();
  await admin.query(
    'CREATE TABLE plan_test_items (id text PRIMARY KEY, project text NOT NULL, created_at timestamptz NOT NULL)',
  );
  await admin.query('CREATE INDEX ON plan_test_items (project, created_at, id)');
  await admin.query(`INSERT INTO plan_test_items
    SELECT 'item_' || lpad(n::text, 5, '0'), CASE WHEN n % 10 = 0 THEN 'p2' ELSE 'p1' END,
      timestamptz '2026-01-01' + n * interval '1 minute'
    FROM generate_series(1, 5000) n`);
  await admin.query('ANALYZE plan_test_items');
  await admin.end();
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

// The project's newest items, as the page should read them.
const newest = (count: number) =>
  Array.from({ length: 5000 }, (_, i) => 5000 - i)
    .filter((n) => n % 10 !== 0)
    .slice(0, count)
    .map((n) => `item_${String(n).padStart(5, '0')}`);

describe('list pages and their plans', () => {
  test('a page of the default size is read on the generic plan once PostgreSQL has tried five custom ones', async () => {
    for (let i = 0; i < 8; i++) expect((await firstPage(26)).map((row) => row.id)).toEqual(newest(26));
    const prepared = await statements();
    if (!named) {
      // Behind PgBouncer the statements are unnamed: nothing is prepared in the session.
      expect(prepared).toEqual([]);
      return;
    }
    expect(prepared).toHaveLength(1);
    expect(prepared[0].statement).toMatch(/ LIMIT 26$/);
    expect(prepared[0]).toMatchObject({ custom_plans: 5, generic_plans: 3 });
  });

  test('other page sizes share one statement with the size as a parameter', async () => {
    expect((await firstPage(7)).map((row) => row.id)).toEqual(newest(7));
    expect((await firstPage(8)).map((row) => row.id)).toEqual(newest(8));
    const sized = (await statements()).filter((row) => !/ LIMIT 26$/.test(row.statement));
    if (!named) {
      expect(sized).toEqual([]);
      return;
    }
    expect(sized).toHaveLength(1);
    expect(sized[0].statement).toMatch(/ LIMIT \$2$/);
  });
});
