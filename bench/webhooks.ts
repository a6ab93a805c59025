/**
 * `npm run bench:webhooks`: webhook delivery end to end. A throwaway PostgreSQL, the real server process
 * (`src/main.ts` with its workers, trusting the receivers' self-signed certificate through
 * NODE_EXTRA_CA_CERTS) and local HTTPS receivers in this process. Two scenarios:
 *
 * - fan-out: FANOUT_EVENTS events, each to 100 subscriptions (100 receivers, one port each);
 * - burst: BURST_EVENTS events to 1 subscription, written while the server delivers;
 * - backlog: BURST_EVENTS events to 1 subscription written while the server is stopped, then the server
 *   started: what the sender alone manages for one subscription, without the writers competing for CPU.
 *
 * Events are written by PRODUCERS concurrent transactions that each record one store event (the fan-out
 * runs inside them, as in any API write). For every delivery the time from its write's commit to the
 * receiver getting the POST is measured on this process's clock. Prints deliveries per second and
 * latency percentiles, and writes them into bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { createProject } from '../src/modules/platform/projects.service.js';
import { recordEvent, type EventType } from '../src/modules/store-events/index.js';
import { createWebhook } from '../src/modules/webhooks/subscriptions.service.js';
import { startProcess } from '../src/process.js';
import type { Ctx } from '../src/shared/context.js';
import { createLogger } from '../src/shared/logger.js';
import { selfSignedCertificate } from '../tests/setup/self-signed.js';

const root = path.resolve(import.meta.dirname, '..');
const FANOUT_EVENTS = Number(process.env.BENCH_FANOUT_EVENTS ?? 100);
const FANOUT_SUBSCRIPTIONS = 100;
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 10_000);
const PRODUCERS = Number(process.env.BENCH_PRODUCERS ?? 16);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 300) * 1000;

const log = (line: string) => process.stdout.write(`${line}\n`);
// Other work on the machine (a shared 2-CPU host) shows here; the table records it.
const loadBefore = os.loadavg()[0].toFixed(1);

/** Receipts: delivery key (receiver port and path, event sequence) -> when it arrived; duplicates counted. */
class Receivers {
  readonly arrived = new Map<string, number>();
  duplicates = 0;
  private readonly servers: https.Server[] = [];
  private waiter: { count: number; resolve: () => void } | undefined;

  constructor(private readonly tls: { key: string; cert: string }) {}

  async open(count: number): Promise<string[]> {
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      const server = https.createServer({ ...this.tls, keepAliveTimeout: 10_000 }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const at = Date.now();
          const seq = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { bench_seq: number } }).data.bench_seq;
          const key = `${req.socket.localPort}${req.url}|${seq}`;
          if (this.arrived.has(key)) this.duplicates += 1;
          else this.arrived.set(key, at);
          res.writeHead(204).end();
          if (this.waiter && this.arrived.size >= this.waiter.count) this.waiter.resolve();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      urls.push(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    return urls;
  }

  until(count: number, timeoutMs: number): Promise<boolean> {
    if (this.arrived.size >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiter = { count, resolve: () => (clearTimeout(timer), resolve(true)) };
    });
  }

  close(): void {
    for (const server of this.servers) {
      server.closeAllConnections();
      server.close();
    }
  }
}

function startServer(env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the server process.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (/listening on http/.test(output)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`src/main.ts exited with ${code}: ${output}`)));
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

interface Result {
  name: string;
  label: string;
  events: number;
  deliveries: number;
  produceSeconds: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  duplicates: number;
  missing: number;
}

async function scenario(
  name: string,
  label: string,
  ctx: Ctx,
  receivers: Receivers,
  urls: string[],
  type: EventType,
  events: number,
  backlog = false,
): Promise<Result> {
  for (const url of urls) await createWebhook(ctx, { url: `${url}/${name}`, events: [type] }, { allowPrivate: true });
  receivers.arrived.clear();
  receivers.duplicates = 0;
  const committed = new Array<number>(events);
  let next = 0;
  log(
    `${name}: ${events.toLocaleString('en')} events x ${urls.length} subscription(s), ${PRODUCERS} writers${backlog ? ', sender stopped while writing' : ''}...`,
  );
  if (backlog) await stopSender();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      for (let seq = next++; seq < events; seq = next++) {
        await ctx.db.$transaction((tx) =>
          recordEvent(tx, ctx, {
            type,
            resourceType: 'product',
            resourceId: `prod_bench_${seq}`,
            summary: `Benchmark event ${seq}`,
            payload: {
              id: `prod_bench_${seq}`,
              title: 'Trail Runner 2',
              price: 11900,
              tags: ['bench'],
              bench_seq: seq,
            },
          }),
        );
        committed[seq] = Date.now();
      }
    }),
  );
  const produced = Date.now();
  if (backlog) await startSender();
  const expected = events * urls.length;
  const complete = await receivers.until(expected, TIMEOUT_MS);
  const latencies: number[] = [];
  let last = started;
  for (const [key, at] of receivers.arrived) {
    const seq = Number(key.split('|')[1]);
    latencies.push(at - committed[seq]);
    last = Math.max(last, at);
  }
  latencies.sort((a, b) => a - b);
  // Live: from the first commit. Backlog: from the first receipt (the sender started after the writes).
  const first = backlog ? Math.min(...receivers.arrived.values()) : Math.min(...committed);
  const seconds = (last - first) / 1000;
  const result: Result = {
    name,
    label,
    events,
    deliveries: receivers.arrived.size,
    produceSeconds: (produced - started) / 1000,
    seconds,
    rate: receivers.arrived.size / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1)!,
    duplicates: receivers.duplicates,
    missing: expected - receivers.arrived.size,
  };
  log(
    `  ${result.deliveries.toLocaleString('en')} deliveries in ${seconds.toFixed(1)} s (writes took ${result.produceSeconds.toFixed(1)} s): ` +
      `${result.rate.toFixed(0)}/s; commit to receiver p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms` +
      `${complete ? '' : ` — INCOMPLETE after ${TIMEOUT_MS / 1000} s (${result.missing} missing)`}`,
  );
  return result;
}

// The embedded PostgreSQL makes its own directory (it runs as another user); the certificate goes elsewhere.
const pgDir = path.join(os.tmpdir(), `commerce-bench-webhooks-${process.pid}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'commerce-bench-webhooks-ca-'));
const embedded = process.env.BENCH_DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dir: pgDir, persistent: false, whenInUse: 'refuse' });
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;
let server: ChildProcess | undefined;
let serverEnv: Record<string, string> = {};
async function startSender(): Promise<void> {
  server = await startServer(serverEnv);
}
async function stopSender(): Promise<void> {
  const stopping = server;
  server = undefined;
  if (!stopping) return;
  const exited = new Promise((resolve) => stopping.once('exit', resolve));
  stopping.kill('SIGTERM');
  await exited;
}
const tls = selfSignedCertificate(['bench.test']);
const caFile = path.join(dataDir, 'ca.pem');
writeFileSync(caFile, tls.cert);
const receivers = new Receivers(tls);
try {
  log(`Database: ${embedded ? 'throwaway embedded PostgreSQL' : 'BENCH_DATABASE_URL'}; migrating.`);
  await migrate(databaseUrl);
  // The writers are a process of their own, wired as every API process is (src/process.ts), without HTTP and
  // without working jobs: the server process delivers.
  const producer = await startProcess({
    databaseUrl,
    config: { ...loadConfig({}), databaseUrl, runJobs: false, logLevel: 'warn' },
    log: createLogger('warn'),
    poolSize: PRODUCERS + 2,
  });
  const { db, jobs, log: logger, caches } = producer.deps;
  const { project, keys } = await createProject(db, { name: 'Webhook Benchmark Store' });
  const ctx: Ctx = {
    db,
    jobs,
    log: logger,
    caches,
    project,
    actor: { kind: 'api_key', id: keys.secret_test.id, keyType: 'secret' },
    mode: 'test',
    requestId: 'bench',
  };
  serverEnv = {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  await startSender();
  const urls = await receivers.open(FANOUT_SUBSCRIPTIONS);
  await scenario('warmup', '', ctx, receivers, urls.slice(0, 1), 'collection.created', 200);
  const results = [
    await scenario(
      'fanout',
      `1 event to ${FANOUT_SUBSCRIPTIONS} subscriptions, ${FANOUT_EVENTS} times`,
      ctx,
      receivers,
      urls,
      'product.updated',
      FANOUT_EVENTS,
    ),
    await scenario(
      'burst',
      'burst to 1 subscription',
      ctx,
      receivers,
      urls.slice(0, 1),
      'product.created',
      BURST_EVENTS,
    ),
    await scenario(
      'backlog',
      'backlog of 1 subscription, sender started after the writes',
      ctx,
      receivers,
      urls.slice(1, 2),
      'product.deleted',
      BURST_EVENTS,
      true,
    ),
  ];
  const statuses = await db.webhookDelivery.groupBy({ by: ['status'], _count: { _all: true } });
  log(`Delivery rows by status: ${statuses.map((s) => `${s.status} ${s._count._all}`).join(', ')}`);
  await producer.stop();

  const table = [
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ` +
      `${PRODUCERS} concurrent writers; the server process, PostgreSQL, the writers and the receivers share the machine ` +
      `(load average before the run ${loadBefore}, after ${os.loadavg()[0].toFixed(1)}).`,
    '',
    '| scenario | events | deliveries | writes took s | delivering took s | deliveries/s | commit to receiver p50 ms | p99 ms | max ms | duplicates | missing |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => {
      const latency = r.name === 'backlog' ? '(queued while stopped) | | ' : `${r.p50} | ${r.p99} | ${r.max} | `;
      return (
        `| ${r.label} | ${r.events.toLocaleString('en')} | ${r.deliveries.toLocaleString('en')} | ${r.produceSeconds.toFixed(1)} | ` +
        `${r.seconds.toFixed(1)} | ${r.rate.toFixed(0)} | ${latency}${r.duplicates} | ${r.missing} |`
      );
    }),
    '',
    '"delivering took": from the first commit to the last receipt (live), or from the first to the last receipt (backlog).',
  ].join('\n');
  log(`\n${table}\n`);
  const readme = path.join(root, 'bench/README.md');
  const text = readFileSync(readme, 'utf8');
  writeFileSync(
    readme,
    text.replace(
      /<!-- webhooks:start -->[\s\S]*<!-- webhooks:end -->/,
      `<!-- webhooks:start -->\n${table}\n<!-- webhooks:end -->`,
    ),
  );
  log('Wrote the table into bench/README.md.');
} finally {
  receivers.close();
  await stopSender();
  await embedded?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(pgDir, { recursive: true, force: true });
}
process.exit(0);
