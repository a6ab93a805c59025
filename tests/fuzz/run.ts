/**
 * `npm run fuzz [-- --requests N --seed S --concurrency C]`: the full contract fuzz. Starts a throwaway
 * PostgreSQL (or uses TEST_DATABASE_URL) as the test suite does, then sends at least N requests (default
 * 100,000) over every operation of the generated index, in rounds, several operations at a time. Prints
 * the status table, the per-operation summary, the request count and the time; exits 1 if any answer was
 * a 5xx or not what openapi.yaml declares, with each failing request shrunk by fast-check.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { operationIndex } from '../../src/generated/operations.js';
import { FuzzStats, startFuzzTarget, warmUp } from './harness.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    concurrency: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '8' },
  },
});
const target = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);

// @ts-expect-error: a plain .mjs module shared with Jest's global setup
const { default: globalSetup } = await import('../setup/global-setup.mjs');
// @ts-expect-error: as above
const { default: globalTeardown } = await import('../setup/global-teardown.mjs');

await globalSetup();
const started = performance.now();
const fuzz = await startFuzzTarget();
const stats = new FuzzStats();
const failures: Array<{ operationId: string; round: number; message: string }> = [];
const latencies: number[] = [];
const exercise: typeof fuzz.exercise = async (request, s) => {
  const answer = await fuzz.exercise(request, s);
  latencies.push(answer.ms);
  return answer;
};

try {
  for (const message of await warmUp(fuzz, stats)) {
    failures.push({ operationId: 'warm-up', round: -1, message });
    console.error(`\nFAILURE in the warm-up:\n${message}\n`);
  }
  const perRun = Math.ceil((target - stats.requests) / (rounds * operationIndex.length));
  console.log(
    `fuzz: seed ${seed}, ${operationIndex.length} operations, ${rounds} rounds of ${perRun} requests per operation, ${concurrency} operations at a time`,
  );
  for (let round = 0; round < rounds; round++) {
    const queue = fc.sample(fc.shuffledSubarray([...operationIndex], { minLength: operationIndex.length }), {
      numRuns: 1,
      seed: seed + round,
    })[0];
    const worker = async () => {
      for (let op = queue.shift(); op; op = queue.shift()) {
        const result = await fc.check(
          fc.asyncProperty(fuzz.arbitraries.get(op.operationId)!, async (request) => {
            await exercise(request, stats);
          }),
          { numRuns: perRun, seed: seed + round * 1000 + op.operationId.length, endOnFailure: false },
        );
        if (result.failed) {
          const message = `${fc.defaultReportMessage(result) ?? ''}\nGot: ${(result.errorInstance as Error)?.message ?? String(result.errorInstance)}`;
          failures.push({ operationId: op.operationId, round, message });
          console.error(`\nFAILURE ${op.operationId} (round ${round + 1}):\n${message}\n`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `round ${round + 1}/${rounds}: ${stats.requests} requests, ${seconds.toFixed(0)} s, ${failures.length} failures`,
    );
  }
} finally {
  await fuzz.close();
  await globalTeardown();
}

const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))]?.toFixed(1);
console.log('\nStatus  Count');
for (const [status, count] of [...stats.byStatus].sort((a, b) => a[0] - b[0]))
  console.log(`${String(status).padEnd(7)} ${count}`);
console.log(`\nBy operation (status:count):`);
for (const op of operationIndex) {
  const seen = stats.byOperation.get(op.operationId);
  const cells = seen
    ? [...seen]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(' ')
    : 'none';
  console.log(`  ${op.operationId.padEnd(36)} ${cells}`);
}
console.log(
  `\n${stats.requests} requests (valid ${stats.byIntent.valid}, invalid ${stats.byIntent.invalid}, wrong or no credential ${stats.byIntent.wrongCredential}) ` +
    `in ${seconds.toFixed(1)} s (${(stats.requests / seconds).toFixed(0)} requests/s; latency p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms); seed ${seed}`,
);
console.log(`${failures.length} failures`);
process.exit(failures.length > 0 ? 1 : 0);
