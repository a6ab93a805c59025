import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { TEST_METRICS_TOKEN } from '../../setup/test-app.js';
import { useStore } from '../../setup/store.js';
import {
  FLUSH_AT,
  MAX_BUFFERED,
  flushSearchLog,
  recordSearch,
  searchLogCounts,
  type SearchLogEntry,
} from '../../../src/modules/search/search-log.js';

const store = useStore();
let together: CreatedProject;
let oneByOne: CreatedProject;

// Searches as the log receives them: one client repeating a query (with a result count that changes between its
// repeats), two more clients, and a query that finds nothing, searched twice by one client.
const SEARCHES: Array<Omit<SearchLogEntry, 'projectId'>> = [
  { query: 'wool socks', resultCount: 1, tookMs: 2, clientHash: 'client-a' },
  { query: 'wool socks', resultCount: 1, tookMs: 4, clientHash: 'client-a' },
  { query: 'wool socks', resultCount: 2, tookMs: 3, clientHash: 'client-a' },
  { query: 'wool socks', resultCount: 1, tookMs: 2, clientHash: 'client-a' },
  { query: 'wool socks', resultCount: 2, tookMs: 2, clientHash: 'client-b' },
  { query: 'zebra boots', resultCount: 0, tookMs: 1, clientHash: 'client-a' },
  { query: 'wool socks', resultCount: 2, tookMs: 2, clientHash: 'client-c' },
  { query: 'zebra boots', resultCount: 0, tookMs: 1, clientHash: 'client-a' },
];

const rowsOf = (project: CreatedProject) =>
  store.app.deps.db.searchQuery.findMany({
    where: { projectId: project.project.id },
    select: { query: true, clientHash: true, resultCount: true, searchCount: true },
  });
const statsOf = (project: CreatedProject) =>
  store.app.deps.db.searchQueryStat.findMany({
    where: { projectId: project.project.id },
    select: { query: true, searchCount: true, lastResultCount: true, clientCount: true },
    orderBy: { query: 'asc' },
  });
async function analyticsOf(project: CreatedProject) {
  const api = store.app.client(project.keys.secret_test.token);
  const shop = store.app.client(project.keys.publishable_test.token);
  const [top, zero, suggest] = await Promise.all([
    api.GET('/v1/search/analytics/top-queries', { params: { query: { period: '1d' } } }),
    api.GET('/v1/search/analytics/zero-results', { params: { query: { period: '1d' } } }),
    shop.GET('/v1/search/suggest', { params: { query: { q: 'wo' } } }),
  ]);
  return { top: top.data!.data, zero: zero.data!.data, suggest: suggest.data!.data };
}

beforeAll(async () => {
  together = await createProject(store.app);
  oneByOne = await createProject(store.app);
  for (const project of [together, oneByOne])
    await createProduct(store.app.client(project.keys.secret_test.token), {
      title: 'Wool Socks',
      variants: [{ title: 'One', price: 900 }],
    });
  const db = store.app.deps.db;
  // The same searches: in one project all written by one write, in the other each written on its own.
  for (const search of SEARCHES) recordSearch(db, { ...search, projectId: together.project.id });
  await flushSearchLog();
  for (const search of SEARCHES) {
    recordSearch(db, { ...search, projectId: oneByOne.project.id });
    await flushSearchLog();
  }
});

describe('the search log writes a client’s repeats of a query as one row with a count', () => {
  test('repeats with the same result count written together are one row whose count is how many searches it stands for', async () => {
    const rows = await rowsOf(together);
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(
      expect.arrayContaining([
        { query: 'wool socks', clientHash: 'client-a', resultCount: 1, searchCount: 3 },
        { query: 'wool socks', clientHash: 'client-a', resultCount: 2, searchCount: 1 },
        { query: 'zebra boots', clientHash: 'client-a', resultCount: 0, searchCount: 2 },
      ]),
    );
    expect(await rowsOf(oneByOne)).toHaveLength(SEARCHES.length);
    expect((await rowsOf(oneByOne)).every((row) => row.searchCount === 1)).toBe(true);
  });

  test('top queries, zero-result queries and suggestions answer the same as for the searches written one by one', async () => {
    const collapsed = await analyticsOf(together);
    expect(collapsed).toEqual(await analyticsOf(oneByOne));
    expect(collapsed.top).toEqual([
      { query: 'wool socks', count: 6, clients: 3, avg_results: 1.5 },
      { query: 'zebra boots', count: 2, clients: 1, avg_results: 0 },
    ]);
    expect(collapsed.zero).toEqual([{ query: 'zebra boots', count: 2 }]);
    expect(collapsed.suggest.filter((s) => s.type === 'query').map((s) => s.text)).toEqual(['wool socks']);
  });

  test('the running totals for suggestions (searches, last result count, clients) are the same as well', async () => {
    const totals = await statsOf(together);
    expect(totals).toEqual(await statsOf(oneByOne));
    expect(totals).toEqual([
      { query: 'wool socks', searchCount: 6, lastResultCount: 2, clientCount: 3 },
      { query: 'zebra boots', searchCount: 2, lastResultCount: 0, clientCount: 1 },
    ]);
  });
});

describe('flushSearchLog (called on shutdown before the database closes)', () => {
  test('resolves once the write under way and the searches buffered meanwhile are both stored', async () => {
    const db = store.app.deps.db;
    const projectId = store.project.id;
    // FLUSH_AT rows start a write at once; the three after it are buffered while it runs.
    for (let n = 0; n < FLUSH_AT + 3; n++)
      recordSearch(db, { projectId, query: `flushed ${n}`, resultCount: 1, tookMs: 1, clientHash: 'client-f' });
    expect(searchLogCounts().buffered).toBe(3);
    await flushSearchLog();
    expect(searchLogCounts().buffered).toBe(0);
    expect(await db.searchQuery.count({ where: { projectId, query: { startsWith: 'flushed ' } } })).toBe(FLUSH_AT + 3);
  });
});

describe('the search log’s buffer is bounded', () => {
  test('while a write is under way it holds at most MAX_BUFFERED rows: searches needing a new row are dropped and counted, repeats still count', async () => {
    const db = store.app.deps.db;
    const projectId = store.project.id;
    const search = (n: number) => recordSearch(db, { projectId, query: `bounded ${n}`, resultCount: 1, tookMs: 1 });
    const before = searchLogCounts().dropped;
    // FLUSH_AT rows start a write; until it ends (not before this synchronous loop does), rows are only buffered.
    for (let n = 0; n < FLUSH_AT + MAX_BUFFERED + 3; n++) search(n);
    search(FLUSH_AT); // a repeat of a buffered row: no new row, not dropped
    expect(searchLogCounts()).toMatchObject({ buffered: MAX_BUFFERED, dropped: before + 3 });

    await flushSearchLog();
    expect(searchLogCounts().buffered).toBe(0);
    const [stored] = await db.$queryRaw<Array<{ rows: number; searches: number }>>`
      SELECT count(*)::int AS rows, sum(search_count)::int AS searches FROM search_queries
      WHERE project_id = ${projectId} AND query LIKE 'bounded %'`;
    expect(stored).toEqual({ rows: FLUSH_AT + MAX_BUFFERED, searches: FLUSH_AT + MAX_BUFFERED + 1 });

    const metrics = await fetch(`${store.app.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${TEST_METRICS_TOKEN}` },
    });
    expect(await metrics.text()).toMatch(
      new RegExp(`^commerce_search_log\\{count="dropped_searches",process="[^"]+"\\} ${before + 3}$`, 'm'),
    );
  });
});
