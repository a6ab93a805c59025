/**
 * `npm run bench:docs` (`-- --loads N --no-write`): how soon `/docs` is interactive in headless Chromium (Debian's
 * `chromium`; `CHROMIUM_PATH` to use another), against the aim of 3 s. Starts the API as npm start runs it (on a
 * throwaway embedded PostgreSQL) and visits the page `--loads` times (default 10), each in a fresh browser context
 * (empty cache), with the browser test's readiness condition (tests/setup/docs-page.ts: every tag listed, a tag
 * opened, an operation opened with its "Try it out" button); prints every load, the median and the worst, and
 * writes them into bench/README.md. The first load is also the server's first visitor (it compresses the page,
 * its assets and the document then): reported apart.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.js';
import { launchChromium, timeToInteractive } from '../tests/setup/docs-page.js';
import {
  benchOptions,
  buildServer,
  loadAverage,
  startCompiledServer,
  startThrowawayPostgres,
  stopServer,
} from './kit.js';

const root = path.resolve(import.meta.dirname, '..');
const USAGE = `Usage: npm run bench:docs -- [--loads N] [--no-write]

Visits /docs of an API started as npm start runs it, N times in headless Chromium (each with an empty cache), and
prints the time until the page is interactive: each load, the median and the worst, against the 3 s aim.

Options:
  --loads N    visits (default 10)
  --no-write   print the result without writing it into bench/README.md
  -h, --help   show this help`;

const options = benchOptions(USAGE, { loads: 10 });
const AIM_MS = 3_000;

const embedded = await startThrowawayPostgres('bench-docs');
let server: Awaited<ReturnType<typeof startCompiledServer>> | undefined;
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
try {
  await migrate(embedded.url);
  buildServer();
  server = await startCompiledServer({ DATABASE_URL: embedded.url, PORT: '0', RUN_JOBS: 'false', LOG_LEVEL: 'warn' });
  browser = await launchChromium();
  const loadBefore = os.loadavg()[0];
  const times: number[] = [];
  for (let load = 1; load <= options.loads; load++) {
    times.push(await timeToInteractive(browser, server.url));
    console.log(`  load ${load}: ${Math.round(times.at(-1)!)} ms (load average ${loadAverage()})`);
  }
  const later = times.slice(1);
  const sorted = [...(later.length > 0 ? later : times)].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const worst = sorted.at(-1)!;
  const verdict = (ms: number) => (ms <= AIM_MS ? 'within' : '**over**');
  const block = [
    `\`npm run bench:docs -- --loads ${options.loads}\`: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), Chromium headless, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after.`,
    '',
    '| /docs interactive (every tag listed, a tag and an operation opened) | ms |',
    '|---|---:|',
    `| first load (the server's first visitor: compresses the page, assets and document) | ${Math.round(times[0])} |`,
    ...(later.length > 0
      ? [
          `| median of the other ${later.length} | ${Math.round(median)} (${verdict(median)} the 3 s aim) |`,
          `| worst of the other ${later.length} | ${Math.round(worst)} (${verdict(worst)} the 3 s aim) |`,
        ]
      : []),
    '',
    `Every load, ms: ${times.map((ms) => Math.round(ms)).join(', ')}.`,
  ].join('\n');
  console.log(`\n${block}\n`);
  if (options.write) {
    const readme = path.join(root, 'bench/README.md');
    const text = readFileSync(readme, 'utf8');
    writeFileSync(
      readme,
      text.replace(
        /<!-- docs-page:start -->[\s\S]*<!-- docs-page:end -->/,
        `<!-- docs-page:start -->\n${block}\n<!-- docs-page:end -->`,
      ),
    );
    console.log('Wrote the result into bench/README.md.');
  }
} finally {
  await browser?.close();
  if (server) await stopServer(server);
  await embedded.stop();
}
process.exit(0);
