/**
 * How `npm run bench` measures the checkout journeys (bench/checkout-journey.ts): each variant of CHECKOUT_VARIANTS
 * prepared, CHECKOUT_WARM_UP journeys not measured, then two rounds of half the journeys each, variants taking turns
 * (a1, b1, c1, then c2, b2, a2); rows for the API-only table, the per-step table and, with more
 * than one variant, each one's journeys a second against the first's.
 */
import os from 'node:os';
import { readFileSync } from 'node:fs';
import {
  CHECKOUT_VARIANTS,
  type CheckoutContext,
  type JourneyRound,
  roundFigures,
  runJourneys,
  stepTable,
} from './checkout-journey.js';

/** Journeys run before the measured ones: the server compiles the journey's code paths and prepares its statements. */
export const CHECKOUT_WARM_UP = 100;

interface Options extends CheckoutContext {
  /** Journeys measured per variant, split between its two rounds. */
  journeys: number;
  clients: number;
  /** The API process, for its peak resident memory. */
  pid: number;
  /** Get by id's requests a second, for the table's "of get by id" column (the journeys' requests a second). */
  getByIdRps: number;
  log: (line: string) => void;
}

const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
};

/** Measures every checkout variant; rows for the API-only table, the text below it, and the API's peak RSS meanwhile. */
export async function measureCheckouts(options: Options): Promise<{ rows: string[]; text: string[]; rssMb: number }> {
  const { log, clients } = options;
  let numbered = 0; // every journey buys its own variants and has its own e-mail
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(options.pid))), 100);
  try {
    const measured = [];
    for (const variant of CHECKOUT_VARIANTS) {
      log(`Measuring ${variant.name}: preparing, then ${CHECKOUT_WARM_UP} journeys not measured...`);
      await variant.prepare(options);
      const warm = await runJourneys(options, variant.steps(options), CHECKOUT_WARM_UP, clients, numbered);
      numbered += CHECKOUT_WARM_UP;
      if (warm.failed > 0)
        throw new Error(`${variant.name}: ${warm.failed} warm-up journeys failed: ${warm.firstFailure}`);
      measured.push({ variant, rounds: [] as JourneyRound[], loads: [] as number[] });
    }
    const half = Math.max(1, Math.floor(options.journeys / 2));
    for (const round of [1, 2]) {
      // The second round in reverse order (a1, b1, c1, c2, b2, a2): a drift over the run (the job worker's backlog of
      // confirmation e-mails and events, autovacuum) weighs on every variant alike instead of on the last one.
      for (const entry of round === 1 ? measured : [...measured].reverse()) {
        entry.loads.push(os.loadavg()[0]);
        log(
          `  ${entry.variant.name}, round ${round}: ${half} journeys, ${clients} clients (load ${os.loadavg()[0].toFixed(2)})`,
        );
        const result = await runJourneys(options, entry.variant.steps(options), half, clients, numbered);
        numbered += half;
        if (result.firstFailure) log(`  a journey failed: ${result.firstFailure}`);
        entry.rounds.push(result);
      }
    }
    const figures = measured.map(({ variant, rounds, loads }) => {
      const each = rounds.map(roundFigures);
      const rps = each.reduce((sum, f) => sum + f.rps, 0) / each.length;
      const spread = (Math.max(...each.map((f) => f.rps)) - Math.min(...each.map((f) => f.rps))) / rps;
      const mean = (pick: (f: (typeof each)[number]) => number) =>
        Math.round((each.reduce((sum, f) => sum + pick(f), 0) / each.length) * 10) / 10;
      const steps = variant.steps(options).length;
      return {
        variant,
        rps,
        cell:
          `${rps.toFixed(1)} journeys/s (${each.map((f) => f.rps.toFixed(1)).join(' / ')}, ±${((spread * 100) / 2).toFixed(0)} %` +
          `${spread > 0.15 ? ', **noisy**' : ''})`,
        p50: mean((f) => f.p50),
        p99: mean((f) => f.p99),
        errors: each.reduce((sum, f) => sum + f.errors, 0),
        ofGetById: `${(((rps * steps) / options.getByIdRps) * 100).toFixed(0)} % (${steps} requests a journey)`,
        loads: loads.map((l) => l.toFixed(1)).join(', '),
        steps,
      };
    });
    const rows = figures.map(
      (f) =>
        `| ${f.variant.name} (${clients} clients, a journey of ${f.steps} requests with the publishable key; whole journey) | ${f.cell} | ${f.p50} | ${f.p99} | ${Math.round(peak)} | ${f.ofGetById} | ${f.loads} |` +
        (f.errors > 0 ? ` failed journeys: ${f.errors}` : ''),
    );
    const [first] = figures;
    const text = [
      `Checkout journeys (${half * 2} per variant after ${CHECKOUT_WARM_UP} not measured, ${clients} clients, each client one journey after another; the test provider's \`tok_test_success\`): each step's latency over both rounds.`,
      '',
      ...stepTable(measured),
      ...figures
        .slice(1)
        .map(
          (f) =>
            `\n${f.variant.name}: ${f.rps.toFixed(1)} journeys/s, ${((f.rps / first.rps) * 100).toFixed(0)} % of ${first.variant.name}'s ${first.rps.toFixed(1)}.`,
        ),
    ];
    for (const line of [...rows, '', ...text]) log(line);
    return { rows, text, rssMb: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}
