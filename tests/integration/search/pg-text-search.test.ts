import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase } from '../../setup/database.js';
import {
  arrayDoc,
  decodeTsQuery,
  decodeTsVector,
  tsMatches,
  type TsQuery,
} from '../../../src/modules/search/engine/pg-tsquery.js';
import { NO_PAIRS_RANK, sortedUniqueOperands, tsRank } from '../../../src/modules/search/engine/pg-tsrank.js';

// The TypeScript port of `doc @@ query` and ts_rank must answer what PostgreSQL answers, bit for bit, on random
// documents and queries of the shapes the search builds (src/modules/search/tsquery.ts, search.sql.ts).

const WEIGHTS = [0.1, 0.3, 0.5, 1.0];
const DOCS = 1500;
const QUERIES = 2000;
const RANDOM_PAIRS_PER_QUERY = 12;
const MATCHING_PAIRS_PER_QUERY = 8;

// Stems that collide (run/running/runs), stop words, hyphenated and non-ASCII words, prefixes of one another.
const VOCABULARY = [
  'run', 'running', 'runs', 'runner', 'shirt', 'shirts', 't-shirt', 'tshirt', 'color', 'colors', 'colour',
  'wash', 'washed', 'washing', 'blue', 'bluer', 'light', 'lights', 'lighting', 'organic', 'cotton', 'case',
  'cases', 'casing', 'phone', 'red', 'dress', 'dresses', 'dressing', 'lamp', 'bag', 'bags', 'baggy', '12oz',
  'café', 'pre-wash', 'the', 'a', 'of', 'and', 'with', 'for',
]; // prettier-ignore
const STOPWORDS = ['the', 'a', 'of', 'and', 'with', 'for'];
const PLAIN_WORDS = VOCABULARY.filter((w) => /^[\p{L}\p{N}]+$/u.test(w) && !STOPWORDS.includes(w));

/** mulberry32: a small seeded generator, so every run checks the same cases. */
function randomSource(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const words = (min: number, max: number) => Array.from({ length: min + int(max - min + 1) }, () => pick(VOCABULARY));
  return { next, int, pick, words };
}
type Random = ReturnType<typeof randomSource>;

/** A document's four fields (A title, B, C, D), some long, with repeated words. */
function randomFields(r: Random): string[] {
  const long = r.next() < 0.2;
  return [r.words(1, 6), r.words(0, 5), r.words(0, 4), r.words(0, long ? 40 : 10)].map((ws) => ws.join(' '));
}

/** A term as termSql builds it: english stems or exact forms of a phrase; a prefix word also `w:*`. */
function termSql(r: Random, prefixAllowed = true): string {
  const text = r.next() < 0.1 ? r.pick(STOPWORDS) : r.words(1, r.next() < 0.3 ? 3 : 1).join(' ');
  const exact = `(phraseto_tsquery('english', '${text}') || phraseto_tsquery('search_exact', '${text}'))`;
  if (prefixAllowed && r.next() < 0.5 && /^[\p{L}\p{N}]+$/u.test(text))
    return `(${exact} || to_tsquery('simple', '${text}:*'))`;
  return exact;
}

/** querySql's shape: clauses of OR'ed terms, AND'ed, then `!! term` exclusions (wide: over 40 operands, often). */
function searchQuerySql(r: Random, wide = false): string {
  const clauses = Array.from({ length: 1 + r.int(wide ? 5 : 3) }, () =>
    Array.from({ length: 1 + r.int(wide ? 5 : 3) }, () => termSql(r)).join(' || '),
  ).map((c) => `(${c})`);
  const excluded = Array.from({ length: r.next() < 0.3 ? 1 + r.int(2) : 0 }, () => `!! ${termSql(r, false)}`);
  return `(${[...clauses, ...excluded].join(' && ')})`;
}

/** The bonus query of two adjacent title words, in both configurations. */
function bonusQuerySql(r: Random): string {
  const phrase = `${r.pick(PLAIN_WORDS)}:A <-> ${r.pick(PLAIN_WORDS)}:A`;
  return `(to_tsquery('english', '${phrase}') || to_tsquery('search_exact', '${phrase}'))`;
}

/** A random to_tsquery expression: prefixes, weights, NOT inside phrases, <N> distances. */
function randomExpression(r: Random, depth: number): string {
  if (depth === 0 || r.next() < 0.3) {
    const word = r.next() < 0.1 ? r.pick(STOPWORDS) : r.pick(PLAIN_WORDS);
    const prefix = r.next() < 0.3 ? '*' : '';
    const weight = r.next() < 0.3 ? r.pick(['A', 'B', 'AB', 'CD', 'D', 'ABCD']) : '';
    return prefix || weight ? `${word}:${prefix}${weight}` : word;
  }
  if (r.next() < 0.15) return `!${randomExpression(r, depth - 1)}`;
  const op = r.pick(['&', '|', '<->', '<->', `<${r.int(4)}>`]);
  return `(${randomExpression(r, depth - 1)} ${op} ${randomExpression(r, depth - 1)})`;
}

function randomQuerySql(r: Random): string {
  const kind = r.next();
  if (kind < 0.05) return searchQuerySql(r, true);
  if (kind < 0.55) return searchQuerySql(r);
  if (kind < 0.65) return bonusQuerySql(r);
  if (kind < 0.75) return `(${searchQuerySql(r)} && ${bonusQuerySql(r)})`;
  const expression = `to_tsquery('${r.pick(['simple', 'english', 'search_exact'])}', '${randomExpression(r, 4)}')`;
  return r.next() < 0.3 ? `(${expression} || ${termSql(r)})` : expression;
}

/** PostgreSQL's float4send bytes as the float they are. */
function float4(bytes: Buffer): number {
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getFloat32(0);
}

interface Pair {
  di: number;
  qi: number;
  matches: boolean;
  rank: number;
}

let client: pg.Client;
let drop: () => Promise<void>;
const docs: Array<{ text: string; doc: ReturnType<typeof arrayDoc> }> = [];
const queries: Array<{ text: string; sql: string; query: TsQuery }> = [];
let pairs: Pair[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  client = new pg.Client({ connectionString: database.directUrl });
  await client.connect();
  await client.query(`SET client_min_messages = warning`);
  const r = randomSource(20261125);
  await loadDocuments(r);
  await loadQueries(r);
  pairs = await rankPairs(r);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await drop?.();
});

async function loadDocuments(r: Random) {
  const fields = Array.from({ length: DOCS }, () => randomFields(r));
  // A few documents carry entries without positions (a stripped part): PostgreSQL's MAYBE paths.
  const stripped = Array.from({ length: DOCS }, () => r.next() < 0.05);
  await client.query(
    `CREATE TEMP TABLE docs AS
     WITH f AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[]) AS f(i, a, b, c, d, s)),
          v AS (SELECT i, s, setweight(to_tsvector('english', 'the ' || a) || to_tsvector('search_exact', 'the ' || a), 'A')
                   || setweight(to_tsvector('english', 'the ' || b) || to_tsvector('search_exact', 'the ' || b), 'B')
                   || setweight(to_tsvector('english', 'the ' || c) || to_tsvector('search_exact', 'the ' || c), 'C')
                   || setweight(to_tsvector('english', 'the ' || d) || to_tsvector('search_exact', 'the ' || d), 'D') AS v,
                   d FROM f)
     SELECT i, CASE WHEN s THEN strip(to_tsvector('simple', d)) || v ELSE v END AS v FROM v`,
    [fields.map((_, i) => i), ...[0, 1, 2, 3].map((k) => fields.map((f) => f[k])), stripped],
  );
  const { rows } = await client.query<{ t: string; b: Buffer }>(
    `SELECT v::text AS t, tsvectorsend(v) AS b FROM docs ORDER BY i`,
  );
  for (const row of rows) docs.push({ text: row.t, doc: arrayDoc(decodeTsVector(row.b)) });
}

async function loadQueries(r: Random) {
  const sqls = Array.from({ length: QUERIES }, () => randomQuerySql(r));
  const values = sqls.map((sql, i) => `(${i}, ${sql})`).join(',\n');
  await client.query(`CREATE TEMP TABLE queries AS SELECT * FROM (VALUES ${values}) q(i, q)`);
  const { rows } = await client.query<{ t: string; b: Buffer }>(
    `SELECT q::text AS t, tsquerysend(q) AS b FROM queries ORDER BY i`,
  );
  rows.forEach((row, i) => queries.push({ text: row.t, sql: sqls[i], query: decodeTsQuery(row.b) }));
}

/** PostgreSQL's match and rank for random pairs, and for pairs that match (a few per query). */
async function rankPairs(r: Random): Promise<Pair[]> {
  const qs: number[] = [];
  const ds: number[] = [];
  for (let qi = 0; qi < QUERIES; qi++)
    for (let k = 0; k < RANDOM_PAIRS_PER_QUERY; k++) {
      qs.push(qi);
      ds.push(r.int(DOCS));
    }
  const { rows } = await client.query<{ di: number; qi: number; m: boolean; r: Buffer }>(
    `WITH p AS (SELECT * FROM unnest($1::int[], $2::int[]) p(qi, di)
                UNION ALL
                SELECT q.i, m.i FROM queries q CROSS JOIN LATERAL
                  (SELECT d.i FROM docs d WHERE d.v @@ q.q ORDER BY d.i LIMIT ${MATCHING_PAIRS_PER_QUERY}) m)
     SELECT p.di, p.qi, d.v @@ q.q AS m, float4send(ts_rank($3::float4[], d.v, q.q)) AS r
     FROM p JOIN docs d ON d.i = p.di JOIN queries q ON q.i = p.qi`,
    [qs, ds, WEIGHTS],
  );
  return rows.map((row) => ({ di: row.di, qi: row.qi, matches: row.m, rank: float4(row.r) }));
}

describe('the TypeScript port of @@ and ts_rank', () => {
  test('the cases cover what the port must get right', () => {
    const operandCounts = queries.map((q) => q.query.operands.length);
    const prefixTwins = queries.filter((q) =>
      q.query.operands.some((a) => q.query.operands.some((b) => a.lexeme === b.lexeme && a.prefix !== b.prefix)),
    );
    const survivorsWithPrefix = queries.filter((q) => sortedUniqueOperands(q.query).some((o) => o.prefix));
    expect(pairs.length).toBeGreaterThanOrEqual(20_000);
    expect(pairs.filter((p) => p.matches).length).toBeGreaterThan(5_000);
    expect(operandCounts.filter((n) => n >= 7).length).toBeGreaterThan(300);
    expect(operandCounts.filter((n) => n > 40).length).toBeGreaterThan(5);
    expect(operandCounts.filter((n) => n === 0).length).toBeGreaterThan(5);
    expect(prefixTwins.length).toBeGreaterThan(300);
    expect(survivorsWithPrefix.length).toBeGreaterThan(100);
    expect(queries.filter((q) => q.text.includes('!') && /<\d+>/.test(q.text)).length).toBeGreaterThan(50);
  });

  test('tsMatches answers doc @@ query and tsRank answers ts_rank bit for bit', () => {
    const mismatches: string[] = [];
    const bits = new DataView(new ArrayBuffer(8));
    for (const p of pairs) {
      const { doc, text: docText } = docs[p.di];
      const q = queries[p.qi];
      const matches = tsMatches(q.query, doc);
      const rank = tsRank(WEIGHTS, doc, q.query);
      bits.setFloat32(0, rank);
      bits.setFloat32(4, p.rank);
      const sameRank = Math.fround(rank) === rank && bits.getUint32(0) === bits.getUint32(4);
      if (matches !== p.matches || !sameRank)
        mismatches.push(
          `doc ${p.di} ${docText}\n  query ${p.qi} ${q.text}\n  @@ pg ${p.matches} ts ${matches}; rank pg ${p.rank} ts ${rank}`,
        );
    }
    expect(mismatches.slice(0, 8)).toEqual([]);
    expect(mismatches.length).toBe(0);
  });

  test('an AND or phrase ranks NO_PAIRS_RANK in a document holding at most one of its distinct operands (the index ranks such rows without reading them)', () => {
    let cases = 0;
    for (const p of pairs) {
      const { doc } = docs[p.di];
      const q = queries[p.qi].query;
      const operands = sortedUniqueOperands(q);
      if (!(q.root?.kind === 'and' || q.root?.kind === 'phrase') || operands.length < 2 || doc.size === 0) continue;
      if (operands.filter((operand) => doc.find(operand) > 0).length > 1) continue;
      cases++;
      expect(p.rank).toBe(NO_PAIRS_RANK);
    }
    expect(cases).toBeGreaterThan(1_000);
  });

  test('word_distance does not depend on the last bits of exp (V8 and glibc differ there)', () => {
    const ulps = (x: number, k: number) => {
      const b = new DataView(new ArrayBuffer(8));
      b.setFloat64(0, x);
      b.setBigInt64(0, b.getBigInt64(0) + BigInt(k));
      return b.getFloat64(0);
    };
    for (let d = 0; d <= 100; d++) {
      const e = Math.exp(d / 1.5 - 2);
      const exact = Math.fround(1.0 / (1.005 + 0.05 * e));
      for (const k of [-2, -1, 1, 2]) expect(Math.fround(1.0 / (1.005 + 0.05 * ulps(e, k)))).toBe(exact);
    }
  });
});
