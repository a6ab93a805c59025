/**
 * The search benchmark's scenarios, shared by `npm run bench` (bench/run.ts) and `npm run bench:search`:
 * a mix of one-word, two-word, misspelled, phrase, exclusion, filtered and relaxed searches (facets on) and a mix of
 * suggest prefixes, measured with autocannon at a number of connections; latency percentiles are taken
 * from every response (autocannon's own summary has no p95).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import type { Database } from '../src/db/client.js';
import { generateCatalog } from '../tests/search-quality/catalog.js';
import { insertFixtureProducts } from '../tests/search-quality/load.js';
import { clusterCpuMs, processCpuMs } from './kit.js';

export const SEARCHES = [
  'q=shirt',
  'q=lamp',
  'q=headphones',
  'q=walnut',
  'q=merino%20sweater',
  'q=voltix%20earbuds',
  'q=oak%20table',
  'q=sweatr',
  'q=hedphones',
  'q=jakcet',
  'q=%22table%20lamp%22',
  'q=%22power%20bank%22',
  'q=jacket%20-black',
  'q=shirt&product_type=Shirts',
  'q=lamp&in_stock=true',
  'q=chair&price_max=10000',
  'q=blanket&tag=soft',
  'q=hood',
  // Relaxed: a sentence with words no product holds, and a full title (one strict match, the page filled).
  'q=cozy%20grey%20hoodie%20for%20the%20weekend',
  'q=northpeak%20classic%20linen%20shirt',
].map((q) => `/v1/search?${q}`);
export const SUGGESTS = ['q=sh', 'q=hea', 'q=lamp', 'q=merin', 'q=voltix%20ea', 'q=jakce', 'q=coff', 'q=w'].map(
  (q) => `/v1/search/suggest?${q}`,
);

// Words of the generated catalog (colours, styles, materials, product nouns) that long-tail searches combine.
const LONG_TAIL_WORDS = (
  'black white navy blue red green grey beige olive burgundy sand charcoal classic essential everyday premium ' +
  'vintage modern slim relaxed travel studio outdoor heritage linen cotton wool denim fleece leather cashmere oak ' +
  'walnut ceramic glass steel aluminium plastic silicone fabric shirt jacket sweater hoodie lamp table chair mug ' +
  'headphones earbuds blanket speaker'
).split(' ');

/**
 * Search paths, each new in the generator's life: two or three distinct words of LONG_TAIL_WORDS (a fifth of them
 * filtered to products in stock), from a seeded generator. Every query text of a run is one the service has not
 * answered before (no answer cached, its tsqueries never compiled); its words, and often pairs of them, recur, as in
 * a storefront's long tail.
 */
export function* longTailSearches(seed = 1): Generator<string, never> {
  let state = seed;
  // mulberry32
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const seen = new Set<string>();
  for (;;) {
    const count = random() < 0.6 ? 2 : 3;
    const words = Array.from({ length: count }, () => LONG_TAIL_WORDS[Math.floor(random() * LONG_TAIL_WORDS.length)]);
    const filter = random() < 0.2 ? '&in_stock=true' : '';
    const path = `/v1/search?q=${words.join('%20')}${filter}`;
    if (new Set(words).size < count || seen.has(path)) continue;
    seen.add(path);
    yield path;
  }
}

/** Seeds `count` generated products (search-quality vocabulary, seed 7; ids tagged `idTag`) into the project and indexes them. */
export async function seedSearchCatalog(db: Database, projectId: string, count: number, idTag = ''): Promise<void> {
  await insertFixtureProducts(db, projectId, 'USD', generateCatalog(count, 7), 5000, idTag);
  // As autovacuum would soon (and not during the measurements): fresh statistics, and visibility maps for the
  // index-only suggest scan.
  for (const table of ['search_products', 'search_title_words', 'products', 'variants'])
    await db.$executeRawUnsafe(`VACUUM ANALYZE ${table}`);
}

/** The METRICS_TOKEN the search benches start their API processes with, so they can tell when the suggest index is in use. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0001';

/**
 * Sends suggestions until the API answers them from its suggest index (built in the background on a project's
 * first suggestion; until then suggestions run their statement), as its metrics count; the seconds that took.
 * The API must run with METRICS_TOKEN=BENCH_METRICS_TOKEN.
 */
export async function waitForSuggestIndex(base: string, token: string, timeoutMs = 180_000): Promise<number> {
  const started = Date.now();
  const counts = async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
    const text = await response.text();
    const count = (name: string) =>
      Number(new RegExp(`^commerce_cache_${name}\\{cache="suggestIndexes"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { hits: count('hits'), misses: count('misses') };
  };
  while (Date.now() - started < timeoutMs) {
    const before = await counts();
    // A prefix of its own each time: one the answer cache holds would not reach the index.
    const path = `/v1/search/suggest?q=w${Date.now() - started}`;
    await (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })).text();
    const after = await counts();
    // Answered from the index: every part of it was exact (hits only, no miss).
    if (after.hits > before.hits && after.misses === before.misses) return (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the suggest index was not in use after ${timeoutMs / 1000} s`);
}

/**
 * Sends searches (a query of its own each time, so the answer cache cannot answer it) until one is answered with
 * every in-process index it reads exact (the product index, the synonyms and rules beside it, the suggest index's
 * vocabulary: no miss counted during it); the seconds that took. The API must run with METRICS_TOKEN=BENCH_METRICS_TOKEN.
 */
export async function waitForSearchIndexes(base: string, token: string, timeoutMs = 300_000): Promise<number> {
  const started = Date.now();
  const misses = async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
    const text = await response.text();
    return ['productIndexes', 'suggestIndexes']
      .map(
        (cache) => new RegExp(`^commerce_cache_misses\\{cache="${cache}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? '0',
      )
      .join(',');
  };
  while (Date.now() - started < timeoutMs) {
    const before = await misses();
    const path = `/v1/search?q=lamp${Date.now() - started}`;
    await (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })).text();
    if ((await misses()) === before) return (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the search indexes were not in use after ${timeoutMs / 1000} s`);
}

/** The peak resident set (VmHWM) of process `pid` in MB, or null where /proc is not readable. */
export function peakRssMb(pid: number | undefined): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

export interface MixResult {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * 2 s of warm-up, then `duration` seconds of `requests` (autocannon's: each connection goes through them in turn)
 * at `connections` connections (`measuring` is called between the two, to read counters over the measured seconds alone).
 */
async function measure(
  base: string,
  requests: autocannon.Request[],
  token: string,
  connections: number,
  duration: number,
  measuring?: () => void,
): Promise<MixResult> {
  const run = (seconds: number) =>
    new Promise<{ rps: number; latencies: number[]; errors: number }>((resolve, reject) => {
      const latencies: number[] = [];
      const instance = autocannon(
        { url: base, connections, duration: seconds, headers: { authorization: `Bearer ${token}` }, requests },
        (error, result) =>
          error
            ? reject(error as Error)
            : resolve({ rps: result.requests.average, latencies, errors: result.non2xx + result.errors }),
      );
      instance.on('response', (_client: unknown, _status: number, _bytes: number, time: number) =>
        latencies.push(time),
      );
    });
  await run(2);
  measuring?.();
  const result = await run(duration);
  const sorted = result.latencies.sort((a, b) => a - b);
  const ms = (p: number) => Math.round(percentile(sorted, p) * 10) / 10;
  return { rps: Math.round(result.rps), p50: ms(50), p95: ms(95), p99: ms(99), errors: result.errors };
}

/** 2 s of warm-up, then `duration` seconds of the paths in turn at `connections` connections (see measure). */
export function measureMix(
  base: string,
  paths: string[],
  token: string,
  connections: number,
  duration: number,
  measuring?: () => void,
): Promise<MixResult> {
  const requests = paths.map((path) => ({ method: 'GET' as const, path }));
  return measure(base, requests, token, connections, duration, measuring);
}

/**
 * measureMix for paths sent once each: every request takes the next path of `paths`, whichever connection sends it
 * (measureMix's connections each go through its list in turn).
 */
export function measureEachOnce(
  base: string,
  paths: Iterator<string>,
  token: string,
  connections: number,
  duration: number,
): Promise<MixResult> {
  const next = (request: autocannon.Request) => ({ ...request, path: paths.next().value as string });
  return measure(base, [{ method: 'GET', setupRequest: next }], token, connections, duration);
}

/** An API process measured by measureSearchLogCost: its base URL, its pid (to count its CPU) and how to stop it. */
export interface MeasuredProcess {
  url: string;
  pid?: number;
  stop(): Promise<void>;
}

/**
 * The search log's cost: the search mix on an API process with the log and on one with `SEARCH_LOG=off` (both
 * with the answer cache, where a search costs least and the log's share is largest), in `pairs` pairs of rounds
 * with the order swapped each pair (off, on, on, off, off, on...) so drifting load falls on both alike. Each pair
 * runs on a fresh pair of processes (`start(true)` with the log, `start(false)` without; which one starts first
 * alternates by pair), after an uncounted round on each: two processes of the same code differ by as much as the
 * log's cost (whole runs on one pair read 9-17 % fewer searches with the log, and once 29 % more), so no one
 * process's luck decides. One line with both means,
 * every round and each pair's difference, and the CPU per search of each setting (the API process's, and
 * PostgreSQL's when `postmaster` is its postmaster on this machine), which moves far less with the machine's load
 * than searches per second do.
 */
export async function measureSearchLogCost(
  start: (log: boolean) => Promise<MeasuredProcess>,
  token: string,
  connections: number,
  duration: number,
  pairs = 3,
  postmaster?: number,
): Promise<string> {
  const rounds: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const cpu: Record<'on' | 'off', { api: number; pg: number; searches: number }> = {
    on: { api: 0, pg: 0, searches: 0 },
    off: { api: 0, pg: 0, searches: 0 },
  };
  const loads: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const processes: MeasuredProcess[] = [];
    try {
      // Started in turn, first the one with the log on even pairs and the other on odd ones: a process started
      // first differs from the second (runs of bench:search read 15-23 % fewer searches from whichever came first).
      const logFirst = pair % 2 === 0;
      processes.push(await start(logFirst));
      processes.push(await start(!logFirst));
      const [withLog, withoutLog] = logFirst ? processes : [processes[1], processes[0]];
      // A round on each process first, not counted: a fresh process is slower until its code is compiled.
      for (const { url } of [withoutLog, withLog]) await measureMix(url, SEARCHES, token, connections, duration);
      for (const setting of pair % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        loads.push(os.loadavg()[0]);
        const measured = setting === 'on' ? withLog : withoutLog;
        let before = { api: 0, pg: 0 };
        const { rps } = await measureMix(measured.url, SEARCHES, token, connections, duration, () => {
          before = { api: processCpuMs(measured.pid) ?? 0, pg: clusterCpuMs(postmaster) ?? 0 };
        });
        rounds[setting].push(rps);
        cpu[setting].api += (processCpuMs(measured.pid) ?? 0) - before.api;
        cpu[setting].pg += (clusterCpuMs(postmaster) ?? 0) - before.pg;
        cpu[setting].searches += rps * duration;
      }
    } finally {
      for (const measured of processes) await measured.stop();
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [on, off] = [mean(rounds.on), mean(rounds.off)];
  // Each pair's own difference (its two rounds ran back to back): a cost is resolved only when every pair shows it.
  const pairCosts = rounds.on.map((r, i) => (1 - r / rounds.off[i]) * 100);
  const verdict = pairCosts.every((c) => c > 0)
    ? 'fewer in every pair'
    : pairCosts.every((c) => c < 0)
      ? 'more in every pair'
      : 'pairs disagree: not resolved at this load';
  const perSearch = (setting: 'on' | 'off', part: 'api' | 'pg') =>
    ((cpu[setting][part] * 1000) / cpu[setting].searches).toFixed(0);
  const cpuLine = [
    cpu.on.api > 0 && cpu.off.api > 0
      ? `API ${perSearch('on', 'api')} µs with the log, ${perSearch('off', 'api')} without`
      : '',
    postmaster ? `PostgreSQL ${perSearch('on', 'pg')} µs with, ${perSearch('off', 'pg')} without` : '',
  ].filter(Boolean);
  return (
    `Search log's cost on the search mix with the answer cache (${pairs} pairs of rounds, each pair on a fresh pair of processes, start and round order swapped each pair): ` +
    `${on.toFixed(0)} searches/s with the log, ${off.toFixed(0)} with \`SEARCH_LOG=off\`, ${((1 - on / off) * 100).toFixed(1)} % fewer with it; ` +
    `per pair ${pairCosts.map((c) => `${c.toFixed(1)} %`).join(', ')} (${verdict}; rounds: on ${rounds.on.join(', ')}; off ${rounds.off.join(', ')}; ` +
    `load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} before the rounds)` +
    (cpuLine.length > 0 ? `; CPU per search: ${cpuLine.join('; ')}.` : '.')
  );
}
