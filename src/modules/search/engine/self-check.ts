/**
 * The port's self-check against the server it stands in for: a fixed set of documents (weights A to D, repeated
 * words, stop words, entries without positions) and queries (words, prefixes, phrases, AND, OR, NOT, the search's own
 * configurations) matched and ranked by PostgreSQL and by the port (`tsMatches`, `tsRank`), bit for bit. A server whose
 * text search answers otherwise (another version's ranking, another stemmer) makes the in-process product index
 * unusable on that database, so searches run their statements instead of drifting from them.
 */
import type pg from 'pg';
import { arrayDoc, decodeTsQuery, decodeTsVector, tsMatches } from './pg-tsquery.js';
import { tsRank } from './pg-tsrank.js';

const DOCUMENTS = [
  `setweight(to_tsvector('english', 'Walnut Table Lamp'), 'A') || setweight(to_tsvector('english', 'Lighting'), 'B') ||
   setweight(to_tsvector('english', 'Oakline'), 'C') || to_tsvector('english', 'A warm lamp for the walnut table, lamps and tables')`,
  `setweight(to_tsvector('english', 'Oak Side Table') || to_tsvector('search_exact', 'Oak Side Table'), 'A') ||
   to_tsvector('english', 'Solid oak, oiled; the side table of the oak range')`,
  `setweight(to_tsvector('english', 'Merino Wool Sweater'), 'A') || setweight(to_tsvector('english', 'knitwear soft'), 'B') ||
   strip(to_tsvector('english', 'sweater jumper pullover')) || to_tsvector('english', 'Warm merino, merino blend')`,
  `setweight(to_tsvector('english', 'Linen Shirt'), 'A') || to_tsvector('english', 'Table linen is not a shirt')`,
];
const QUERIES = [
  `websearch_to_tsquery('english', 'lamp')`,
  `websearch_to_tsquery('english', 'oak table')`,
  `to_tsquery('english', 'tabl:*')`,
  `phraseto_tsquery('english', 'table lamp') || phraseto_tsquery('search_exact', 'table lamp')`,
  `websearch_to_tsquery('english', 'sweater -wool')`,
  `to_tsquery('english', 'merino | linen & shirt')`,
  `to_tsquery('english', 'oak <2> table')`,
  `websearch_to_tsquery('english', '"side table" or jumper')`,
];

/**
 * Ranks (with `weights`) and matches every document with every query on the server and with `rank` and the port's matcher; the pairs
 * that differ (empty: the port answers as the server does).
 */
export async function portDifferences(
  client: pg.ClientBase,
  weights: readonly number[],
  rank: typeof tsRank = tsRank,
): Promise<string[]> {
  const { rows } = await client.query<{ d: Uint8Array; q: Uint8Array; m: boolean; r: Uint8Array }>(
    `SELECT tsvectorsend(d.v) AS d, tsquerysend(q.q) AS q, d.v @@ q.q AS m,
            float4send(ts_rank('{${weights.join(',')}}'::float4[], d.v, q.q)) AS r
     FROM (VALUES ${DOCUMENTS.map((sql, i) => `(${i}, ${sql})`).join(', ')}) d(i, v)
     CROSS JOIN (VALUES ${QUERIES.map((sql, i) => `(${i}, ${sql})`).join(', ')}) q(i, q)
     ORDER BY d.i, q.i`,
  );
  const differences: string[] = [];
  const bits = new DataView(new ArrayBuffer(8));
  rows.forEach((row, i) => {
    const doc = arrayDoc(decodeTsVector(row.d));
    const query = decodeTsQuery(row.q);
    const portRank = rank(weights, doc, query);
    const serverRank = new DataView(row.r.buffer, row.r.byteOffset, 4).getFloat32(0);
    bits.setFloat32(0, portRank);
    bits.setFloat32(4, serverRank);
    const sameRank = Math.fround(portRank) === portRank && bits.getUint32(0) === bits.getUint32(4);
    const matches = tsMatches(query, doc);
    if (matches !== row.m || !sameRank)
      differences.push(
        `document ${Math.floor(i / QUERIES.length)}, query ${i % QUERIES.length}: @@ ${row.m} (port ${matches}), ` +
          `ts_rank ${serverRank} (port ${portRank})`,
      );
  });
  return differences;
}

// The verdict per database (pool): checked once, at the first build of a product index on it.
const verdicts = new WeakMap<pg.Pool, Promise<string[]>>();

/** The port's differences from the server behind `pool` with `weights` (checked once per pool, or again now with `rank`: tests). */
export function portDifferencesOn(pool: pg.Pool, weights: readonly number[], rank?: typeof tsRank): Promise<string[]> {
  let verdict = verdicts.get(pool);
  if (!verdict || rank) {
    verdict = (async () => {
      const client = await pool.connect();
      try {
        return await portDifferences(client, weights, rank);
      } finally {
        client.release();
      }
    })();
    // A check that could not run (the database unreachable) is not a verdict: the next build asks again.
    const asked = verdict;
    asked.catch(() => verdicts.get(pool) === asked && verdicts.delete(pool));
    verdicts.set(pool, asked);
  }
  return verdict;
}
