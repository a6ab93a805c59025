/**
 * The bounded contract fuzz of `npm test`: every operation of the generated index gets requests generated
 * from its schemas (valid and invalid, with the right key class); every answer must be a status the
 * operation declares with a body matching openapi.yaml, and never a 5xx. A failure names the request,
 * shrunk by fast-check. `npm run fuzz` is the full run (tests/fuzz/run.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { operationIndex } from '../../src/generated/operations.js';
import { FuzzStats, startFuzzTarget, warmUp, type FuzzTarget } from './harness.js';

// Requests per operation; with the warm-up about 2,500 requests, well under a minute on two cores.
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 14);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

let target: FuzzTarget;
let warmUpFailures: string[] = [];
const stats = new FuzzStats();

beforeAll(async () => {
  target = await startFuzzTarget();
  warmUpFailures = await warmUp(target, stats, 2);
}, 120_000);

afterAll(async () => {
  await target?.close();
});

describe('contract fuzz', () => {
  test('the warm-up (valid creates of every kind) met no failure', () => {
    expect(warmUpFailures).toEqual([]);
  });

  test.each(operationIndex.map((op) => [op.operationId]))(
    '%s answers only declared statuses with bodies matching openapi.yaml',
    async (operationId) => {
      await fc.assert(
        fc.asyncProperty(target.arbitraries.get(operationId)!, async (request) => {
          await target.exercise(request, stats);
        }),
        { numRuns: RUNS_PER_OPERATION, seed: SEED + operationId.length, endOnFailure: false },
      );
    },
  );

  test('the run reached past validation: some answers of every class of status', () => {
    const statuses = [...stats.byStatus.keys()];
    expect(statuses.some((s) => s >= 200 && s < 300)).toBe(true);
    expect(statuses).toContain(400);
    expect(statuses).toContain(404);
  });
});
