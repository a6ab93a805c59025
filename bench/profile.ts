/**
 * `npm run bench:profile` (`-- --help` for the options): CPU profiles of the API under load, one scenario per API
 * process (`node --cpu-prof`, the compiled server as npm start runs it), each summarised as its top frames by
 * self time and its share per package; the profiles themselves are kept for DevTools. Seeds a throwaway
 * database like `npm run bench` (customers, a catalog with two variants per product, drafts for completion).
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { seedCatalog } from '../src/seed/catalog.seed.js';
import { seedCustomers } from '../src/seed/customers.seed.js';
import {
  AMOUNT_SAMPLE_MS,
  benchOptions,
  buildServer,
  createBenchProject,
  loadAverage,
  processCpuMs,
  startCompiledServer,
  startThrowawayPostgres,
  stopServer,
} from './kit.js';
import { moreScenarios } from './more-scenarios.js';
import { DISCOUNTED_CHECKOUT, PLAIN_CHECKOUT, runJourneys } from './checkout-journey.js';

const USAGE = `Usage: npm run bench:profile -- [--customers N] [--products N] [--duration S] [--connections N] [--top N]

Profiles get by id, the customer list, the product list, draft-order completion and the checkout journey, each in an API process of its
own under --connections connections for --duration seconds (after 2 s of warm-up), and prints each profile's top
--top frames by self time. The .cpuprofile files stay in the directory printed at the end.

BENCH_PROFILE_ONLY: a comma-separated subset of get-by-id, customer-list, product-list, complete, checkout,
checkout-discounted (the journey with a code and a promotion; default: all).`;

const options = benchOptions(USAGE, { customers: 10_000, products: 10_000, duration: 8, connections: 20, top: 15 });
const only = process.env.BENCH_PROFILE_ONLY?.split(',').map((name) => name.trim());
const profiled = (file: string) => !only || only.includes(file);

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  hitCount?: number;
}

/** Where a frame's code lives: a package, our source, Node's internals or V8's own buckets (GC, idle, program). */
function ownerOf(frame: Frame): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1];
  if (frame.url.startsWith('node:')) return 'node:internal';
  const dist = /\/dist\/(.*)$/.exec(frame.url);
  return dist ? `src/${dist[1].split('/').slice(0, -1).join('/') || '.'}` : frame.url;
}

/**
 * A profile's top frames by self time, its share per owner and our own functions by inclusive time, as Markdown
 * lines; only the samples of the last `window` (the measured seconds before a stop that took `tail`) count, so
 * start-up and warm-up are left out.
 */
export function summariseProfile(
  file: string,
  top: number,
  window?: { seconds: number; tailSeconds: number },
): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Array<ProfileNode & { children?: number[] }>;
    samples: number[];
    timeDeltas: number[];
    endTime: number;
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = ({ functionName, url, lineNumber }: Frame) =>
    `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
  let at = (profile as unknown as { startTime: number }).startTime;
  const from = window ? profile.endTime - (window.seconds + window.tailSeconds) * 1e6 : -Infinity;
  const to = window ? profile.endTime - window.tailSeconds * 1e6 : Infinity;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const owners = new Map<string, number>();
  let busy = 0;
  let all = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at < from || at > to) return;
    all += 1;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    busy += 1;
    self.set(keyOf(node.callFrame), (self.get(keyOf(node.callFrame)) ?? 0) + 1);
    owners.set(ownerOf(node.callFrame), (owners.get(ownerOf(node.callFrame)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const frame = byId.get(n)!.callFrame;
      if (!frame.url.includes('/dist/') || frame.url.includes('node_modules')) continue;
      const key = keyOf(frame);
      if (!seen.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
      seen.add(key);
    }
  });
  const pct = (hits: number) => `${((hits / busy) * 100).toFixed(1)} %`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return [
    `${all} samples in the measured window, busy ${((busy / all) * 100).toFixed(0)} % (the rest idle); shares are of the busy samples.`,
    '',
    `By owner (self): ${sorted(owners)
      .slice(0, 8)
      .map(([owner, hits]) => `${owner} ${pct(hits)}`)
      .join(', ')}`,
    '',
    '| self | frame |',
    '|---:|---|',
    ...sorted(self)
      .slice(0, top)
      .map(([key, hits]) => `| ${pct(hits)} | \`${key}\` |`),
    '',
    '| inclusive | our function |',
    '|---:|---|',
    ...sorted(inclusive)
      .slice(0, top)
      .map(([key, hits]) => `| ${pct(hits)} | \`${key}\` |`),
  ];
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** `, 1.23 ms CPU per request` over a measured run, or nothing without /proc. */
function cpuPerRequest(before: number | undefined, after: number | undefined, requests: number): string {
  if (before === undefined || after === undefined || requests === 0) return '';
  return `, ${((after - before) / requests).toFixed(2)} ms of the API's CPU per request`;
}
const profileDir = path.join(os.tmpdir(), `commerce-profile-${process.pid}`);
const embedded = await startThrowawayPostgres('profile-db');
try {
  await migrate(embedded.url);
  const db = createDatabase(embedded.url);
  const { project, keys } = await createBenchProject(db, 'Profile Store');
  log(`Seeding ${options.customers} customers and ${options.products} products...`);
  await seedCustomers(db, project.id, options.customers);
  await seedCatalog(db, project.id, options.products, { batchSize: 1000 });
  await db.$executeRawUnsafe('VACUUM ANALYZE customers, products, variants, inventory_levels');
  const ids = (await db.customer.findMany({ where: { projectId: project.id }, select: { id: true }, take: 2000 })).map(
    (c) => c.id,
  );
  const variantIds = (await db.variant.findMany({ where: { projectId: project.id }, select: { id: true } })).map(
    (v) => v.id,
  );
  await db.$disconnect();
  buildServer();
  const auth = { authorization: `Bearer ${keys.secret_test.token}` };
  const env = { DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' };
  const scenarios: Array<{
    name: string;
    file: string;
    request: () => Promise<autocannon.Request & { amount?: number }>;
  }> = [
    {
      name: 'get by id',
      file: 'get-by-id',
      request: async () => ({
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/v1/customers/${ids[Math.floor(Math.random() * ids.length)]}` }),
      }),
    },
    {
      name: 'customer list',
      file: 'customer-list',
      request: async () => ({ method: 'GET', path: '/v1/customers?limit=25' }),
    },
    {
      name: 'product list',
      file: 'product-list',
      request: async () => ({ method: 'GET', path: '/v1/products?limit=25' }),
    },
  ];
  const summaries: string[] = [];
  /**
   * Profiles one scenario in an API process of its own (`file`.cpuprofile): `measure` warms up, times what counts and
   * returns its headline and measured seconds; the profile is summarised over that window.
   */
  const profile = async (
    file: string,
    measure: (server: { url: string; pid: number | undefined }) => Promise<{ headline: string; seconds: number }>,
  ) => {
    const server = await startCompiledServer(env, [
      `--cpu-prof`,
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${file}.cpuprofile`,
    ]);
    let measured: { headline: string; seconds: number };
    let measuredEnd: number;
    try {
      measured = await measure({ url: server.url, pid: server.child.pid });
      measuredEnd = Date.now();
    } finally {
      await stopServer(server);
    }
    const window = { seconds: measured.seconds, tailSeconds: (Date.now() - measuredEnd) / 1000 };
    summaries.push(
      measured.headline,
      '',
      ...summariseProfile(path.join(profileDir, `${file}.cpuprofile`), options.top, window),
      '',
    );
  };
  for (const scenario of scenarios.filter((s) => profiled(s.file))) {
    await profile(scenario.file, async (server) => {
      const request = await scenario.request();
      const run = (duration: number) =>
        autocannon({ url: server.url, connections: options.connections, duration, headers: auth, requests: [request] });
      await run(2);
      const load = loadAverage();
      const cpuBefore = processCpuMs(server.pid);
      const result = await run(options.duration);
      const cpu = cpuPerRequest(cpuBefore, processCpuMs(server.pid), result.requests.total);
      return {
        headline: `### ${scenario.name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${cpu} (load average ${load} before)`,
        seconds: options.duration,
      };
    });
  }
  if (profiled('complete')) {
    // Draft-order completion: drafts made through a plain API process first, then one profiled process completes them.
    const maker = await startCompiledServer(env);
    const completion = moreScenarios({
      url: maker.url,
      secret: keys.secret_test.token,
      publishable: keys.publishable_test.token,
      variantIds,
      completions: 1000,
      log,
    }).find((s) => s.name === 'draft-order complete')!;
    const prepared = await completion.prepare();
    await stopServer(maker);
    await profile('complete', async (server) => {
      const load = loadAverage();
      const started = Date.now();
      const cpuBefore = processCpuMs(server.pid);
      const result = await autocannon({
        url: server.url,
        connections: options.connections,
        amount: prepared.amount,
        sampleInt: AMOUNT_SAMPLE_MS,
        headers: { authorization: `Bearer ${prepared.token}`, 'content-type': 'application/json' },
        requests: [prepared.request],
      });
      const cpu = cpuPerRequest(cpuBefore, processCpuMs(server.pid), result.requests.total);
      return {
        headline: `### draft-order complete: ${(result.requests.total / result.duration).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${cpu}, ${result.non2xx} non-2xx (load average ${load} before)`,
        seconds: (Date.now() - started) / 1000,
      };
    });
  }
  // The checkout journeys (bench/checkout-journey.ts): 100 journeys not measured, then 10 a client, measured.
  for (const [file, journey] of [
    ['checkout', PLAIN_CHECKOUT],
    ['checkout-discounted', DISCOUNTED_CHECKOUT],
  ] as const) {
    if (!profiled(file)) continue;
    await profile(file, async (server) => {
      const ctx = {
        url: server.url,
        secret: keys.secret_test.token,
        publishable: keys.publishable_test.token,
        variantIds,
      };
      await journey.prepare(ctx);
      const steps = journey.steps(ctx);
      await runJourneys(ctx, steps, 100, options.connections);
      const load = loadAverage();
      const cpuBefore = processCpuMs(server.pid);
      const round = await runJourneys(ctx, steps, options.connections * 10, options.connections, 100);
      const cpu = cpuPerRequest(cpuBefore, processCpuMs(server.pid), round.journeys.length * steps.length);
      const ms = (name: string) => {
        const sorted = [...(round.steps.get(name) ?? [])].sort((a, b) => a - b);
        return sorted.length ? sorted[Math.floor(sorted.length / 2)].toFixed(1) : '-';
      };
      return {
        headline: `### ${journey.name} journey: ${(round.journeys.length / round.seconds).toFixed(1)} journeys/s, ${round.failed} failed${cpu}; step p50 ms: ${steps.map((s) => `${s.name} ${ms(s.name)}`).join(', ')} (load average ${load} before)`,
        seconds: round.seconds,
      };
    });
  }
  log(
    `\n${summaries.join('\n')}\nProfiles: ${readdirSync(profileDir)
      .map((f) => path.join(profileDir, f))
      .join(', ')}`,
  );
} finally {
  await embedded.stop();
}
process.exit(0);
