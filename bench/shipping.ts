/**
 * `npm run bench:shipping` (`-- --help` for the options): the storefront rate lookup on a project with 50
 * zones and 500 rates, without carrier callbacks, with a local HTTPS carrier (every lookup asking it, and
 * repeated lookups served by the answer cache), and with the carrier timing out (circuit breakers open).
 * Prints requests per second and latency percentiles and writes them into bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions, createBenchProject } from './kit.js';
import autocannon from 'autocannon';
import { createDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { COUNTRY_CODES } from '../src/shared/iso-codes.js';
import { selfSignedCertificate } from '../tests/setup/self-signed.js';

const root = path.resolve(import.meta.dirname, '..');
const USAGE = `Usage: npm run bench:shipping -- [--duration S] [--connections N] [--rate R] [--no-write]

Seeds 50 shipping zones with 10 rates each (500) through the API, then measures POST /v1/shipping/rates
(2 s of warm-up, then --duration seconds at full speed and --duration seconds at --rate requests a
second, per scenario) and prints the table.

Options:
  --duration S      seconds measured per scenario (default 10)
  --connections N   concurrent connections (default 20)
  --rate R          requests a second of the second measurement of each scenario (default 200)
  --no-write        print the table without writing it into bench/README.md
  -h, --help        show this help

BENCH_DATABASE_URL: measure on this PostgreSQL instead of a throwaway embedded one.`;

const options = benchOptions(USAGE, { duration: 10, connections: 20, rate: 200 });
const ZONES = 50;
const RATES_PER_ZONE = 10;
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Child {
  url: string;
  child: ChildProcess;
}

function startProcess(script: string, env: Record<string, string>, pattern: RegExp): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

/** The rates of every zone: USD and EUR, free-shipping thresholds, weight bands, one inactive. */
const RATES = [
  {
    name: 'Standard',
    price: 990,
    currency: 'USD',
    max_order_weight: 20_000,
    min_delivery_days: 3,
    max_delivery_days: 5,
  },
  { name: 'Express', price: 2500, currency: 'USD', min_delivery_days: 1, max_delivery_days: 2 },
  { name: 'Free shipping', price: 0, currency: 'USD', min_order_subtotal: 5000 },
  { name: 'Economy', price: 590, currency: 'USD', max_order_subtotal: 20_000 },
  { name: 'Heavy goods', price: 4900, currency: 'USD', min_order_weight: 20_001 },
  { name: 'Bulky', price: 7900, currency: 'USD', min_order_weight: 50_000, max_order_weight: 200_000 },
  { name: 'Overnight', price: 5900, currency: 'USD', is_active: false },
  { name: 'Standard', price: 890, currency: 'EUR' },
  { name: 'Express', price: 2200, currency: 'EUR' },
  { name: 'Free shipping', price: 0, currency: 'EUR', min_order_subtotal: 5000 },
];

const countries = [...COUNTRY_CODES].sort();
let counter = 0;
/** A lookup body: a random country (4 of 249 fall to the rest-of-world zone), cart and currency; subtotals never repeat unless `repeat`. */
function lookupBody(repeat?: number): string {
  const n = repeat ?? ++counter;
  const pick = (k: number) => (repeat === undefined ? Math.floor(Math.random() * k) : n % k);
  const items = Array.from({ length: 1 + pick(4) }, (_, i) => ({
    weight_grams: 200 + 350 * ((n + i) % 13),
    quantity: 1 + ((n + i) % 3),
  }));
  return JSON.stringify({
    country: countries[pick(countries.length)],
    subtotal: repeat === undefined ? 1000 + (n % 1_000_000) : 4000 + 100 * (repeat % 50),
    currency: pick(5) === 0 ? 'EUR' : 'USD',
    state: null,
    postal_code: '10001',
    items,
  });
}

interface Measured {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
}

/** Saturation (every connection sends its next request at once) or, with `rate`, that many requests a second in all. */
async function measure(
  url: string,
  token: string,
  body: () => string,
  seconds: number,
  rate?: number,
): Promise<Measured> {
  const result = await autocannon({
    url: `${url}/v1/shipping/rates`,
    connections: options.connections,
    duration: seconds,
    ...(rate === undefined ? {} : { overallRate: rate }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.non2xx + result.errors,
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'shipping-bench-'));
// Not inside the mkdtemp directory (mode 0700): the embedded server runs as its own user.
const pgDir = path.join(os.tmpdir(), `shipping-bench-pg-${process.pid}`);
const embedded = process.env.BENCH_DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dir: pgDir, persistent: false, whenInUse: 'refuse' });
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;
const children: ChildProcess[] = [];
try {
  log(`Database: ${embedded ? 'throwaway embedded PostgreSQL' : 'BENCH_DATABASE_URL'}; migrating.`);
  await migrate(databaseUrl);
  const db = createDatabase(databaseUrl);
  const { keys } = await createBenchProject(db, 'Shipping Benchmark');
  await db.$disconnect();

  const { key, cert } = selfSignedCertificate(['localhost']);
  writeFileSync(path.join(dir, 'carrier-key.pem'), key);
  writeFileSync(path.join(dir, 'carrier-cert.pem'), cert);
  const tls = { CARRIER_CERT: path.join(dir, 'carrier-cert.pem'), CARRIER_KEY: path.join(dir, 'carrier-key.pem') };
  const carrier = await startProcess(
    'mocks/carrier-server.ts',
    { ...tls, CARRIER_MODE: 'ok', CARRIER_RATES: '5' },
    /listening on (https:\/\/\S+)/,
  );
  const sleepy = await startProcess(
    'mocks/carrier-server.ts',
    { ...tls, CARRIER_MODE: 'sleep', CARRIER_DELAY_MS: '6000' },
    /listening on (https:\/\/\S+)/,
  );
  const api = await startProcess(
    'src/main.ts',
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      RUN_JOBS: 'false',
      LOG_LEVEL: 'error',
      DATA_DIR: dir,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: tls.CARRIER_CERT,
    },
    /listening on (http:\/\/\S+)/,
  );
  children.push(carrier.child, sleepy.child, api.child);

  const secret = keys.secret_test.token;
  const call = async (method: string, pathname: string, body: unknown) => {
    const response = await fetch(`${api.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { data: { id: string } };
  };
  log(`Seeding ${ZONES} zones with ${RATES_PER_ZONE} rates each through the API.`);
  const zoneIds: string[] = [];
  for (let z = 0; z < ZONES; z++) {
    const restOfWorld = z === ZONES - 1;
    const zone = await call('POST', '/v1/shipping/zones', {
      name: restOfWorld ? 'Rest of world' : `Zone ${z + 1}`,
      countries: restOfWorld ? [] : countries.slice(z * 5, z * 5 + 5),
      is_rest_of_world: restOfWorld,
      position: z,
    });
    zoneIds.push(zone.data.id);
    for (const rate of RATES) await call('POST', `/v1/shipping/zones/${zone.data.id}/rates`, rate);
  }
  // Fresh planner statistics, as a database in use has them (autovacuum would get there later).
  const analyze = createDatabase(databaseUrl);
  await analyze.$executeRawUnsafe('VACUUM ANALYZE shipping_zones, shipping_rates');
  await analyze.$disconnect();
  const setCallback = async (url: string | null) => {
    for (const id of zoneIds)
      await call('PATCH', `/v1/shipping/zones/${id}`, { carrier_callback_url: url && `${url}/rates` });
  };
  const storefront = keys.publishable_test.token;
  const sample = async () => {
    const response = await fetch(`${api.url}/v1/shipping/rates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${storefront}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        country: 'US',
        subtotal: 6000,
        currency: 'USD',
        items: [{ weight_grams: 500, quantity: 2 }],
      }),
    });
    const { data } = (await response.json()) as { data: Array<{ source: string }> };
    return `${data.filter((r) => r.source === 'flat').length} flat + ${data.filter((r) => r.source === 'carrier').length} carrier rates`;
  };

  const rows: string[] = [];
  const run = async (name: string, body: () => string) => {
    log(
      `Measuring "${name}" (${options.duration} s, ${options.connections} connections; a sample lookup answers ${await sample()})...`,
    );
    await measure(api.url, storefront, body, 2); // warm-up
    for (const rate of [undefined, options.rate]) {
      const m = await measure(api.url, storefront, body, options.duration, rate);
      // Other work on the machine shows in every figure; the 1-minute load average says how much there was.
      const load = os.loadavg()[0].toFixed(1);
      const offered = rate === undefined ? 'as fast as it answers' : `${rate} req/s`;
      rows.push(
        `| ${name} | ${offered} | ${m.rps.toFixed(0)} | ${m.p50} | ${m.p90} | ${m.p99} | ${m.max} | ${m.errors} | ${load} |`,
      );
      log(
        `  ${offered}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, max ${m.max} ms, errors ${m.errors}, load average ${load}`,
      );
    }
  };

  log('Warming up the API and PostgreSQL (10 s)...');
  await measure(api.url, keys.publishable_test.token, () => lookupBody(), 10);
  await run('no carrier callback', () => lookupBody());
  await setCallback(carrier.url);
  await run('carrier callback, every lookup asks the carrier', () => lookupBody());
  let repeat = 0;
  await run('carrier callback, 50 checkouts repeating their lookup (answer cache)', () => lookupBody(++repeat % 50));

  await setCallback(sleepy.url);
  log("Carrier sleeping 6 s: 3 concurrent lookups per zone (150) to reach the breakers' threshold...");
  const started = Date.now();
  const first = await Promise.all(
    zoneIds.flatMap((_, z) =>
      [0, 1, 2].map(async (i) => {
        const country = z === ZONES - 1 ? countries[countries.length - 1] : countries[z * 5];
        const t = Date.now();
        const response = await fetch(`${api.url}/v1/shipping/rates`, {
          method: 'POST',
          headers: { authorization: `Bearer ${storefront}`, 'content-type': 'application/json' },
          body: JSON.stringify({ country, subtotal: 100 + i, currency: 'USD' }),
        });
        await response.arrayBuffer();
        return { status: response.status, ms: Date.now() - t };
      }),
    ),
  );
  const firstMs = first.map((r) => r.ms).sort((a, b) => a - b);
  const firstNote = `the first 150 lookups (3 per zone, all at once) answered flat rates in ${firstMs[0]}-${firstMs.at(-1)} ms (${first.filter((r) => r.status !== 200).length} errors), ${((Date.now() - started) / 1000).toFixed(1)} s in all`;
  log(`  ${firstNote}`);
  await run('carrier timing out, breakers open', () => lookupBody());

  const table = [
    `\`npm run bench:shipping -- --duration ${options.duration} --connections ${options.connections} --rate ${options.rate}\`: ${ZONES} zones, ${ZONES * RATES_PER_ZONE} rates, ` +
      `${options.connections} connections, ${options.duration} s per scenario after 2 s of warm-up, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. ` +
      `Carrier timing out: ${firstNote}; the measurement follows at once, so it falls inside the breakers' 60 s.`,
    '',
    '| scenario | load offered | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | load avg (1 min) after |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  log(`\n${table}\n`);
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    writeFileSync(
      readme,
      text.replace(
        /<!-- shipping:start -->[\s\S]*<!-- shipping:end -->/,
        `<!-- shipping:start -->\n${table}\n<!-- shipping:end -->`,
      ),
    );
    log('Wrote the table into bench/README.md.');
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await embedded?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(pgDir, { recursive: true, force: true });
}
process.exit(0);
