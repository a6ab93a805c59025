'use strict';
/**
 * jest's test order, with the slow project's long files first on a machine that has never run them.
 *
 * jest starts the files it has timed before longest first (from its cache of the last run's durations), and files
 * it has not timed before those, largest first. On a fresh machine (CI on a clean clone) that puts the slow
 * project's longest files late: the contract fuzz is 52 lines and runs 2 to 3 minutes beside the other suites, and
 * started last it alone ends the run minutes after the rest. Here every file has a duration: jest's own figure when
 * it has timed the file, else the table's below (the slow project), else one from its size (about a second per
 * 10 kB, as fast-project files take), so the first run on any machine starts the long files first too.
 *
 * The table's figures are the files' wall times in a clean-clone `.ci/run` (beside the fast project on two cores),
 * in seconds; only their order against each other and against the fast files matters.
 */
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;

const root = path.resolve(__dirname, '../..');

/** Seconds, from .ci/run on a clean clone (d51132b). */
const expectedSeconds = {
  'tests/fuzz/fuzz.test.ts': 146,
  'tests/integration/process/main.test.ts': 104,
  'tests/integration/customers/customer-pagination-100k.test.ts': 82,
  'tests/integration/webhooks/process.test.ts': 64,
  'tests/integration/sdk/package.test.ts': 60,
  'tests/integration/process/fail-safe-start.test.ts': 56,
  'tests/integration/process/crash-safety.test.ts': 50,
  'tests/integration/process/shared-data-dir.test.ts': 46,
  'tests/integration/docs/docs-page.test.ts': 44,
  'tests/integration/process/mock-cli.test.ts': 43,
  'tests/integration/process/memory-bound.test.ts': 39,
  'tests/integration/process/database-outage.test.ts': 36,
  'tests/integration/mock/prism-proxy-fields.test.ts': 29,
  'tests/integration/process/readme.test.ts': 26,
  'tests/integration/process/worker.test.ts': 25,
  'tests/integration/process/worker-health.test.ts': 22,
  'tests/integration/process/consistency-token.test.ts': 22,
  'tests/integration/mock/prism-mock.test.ts': 20,
  'tests/integration/process/cluster.test.ts': 17,
  'tests/integration/process/load-balancer.test.ts': 15,
  'tests/integration/process/systemd-units.test.ts': 14,
  'tests/integration/process/database-startup.test.ts': 14,
  'tests/integration/process/concurrent-migrations.test.ts': 13,
  'tests/integration/process/cli.test.ts': 12,
  'tests/integration/discounts/pgbouncer.test.ts': 12,
  'tests/integration/process/trusted-proxy.test.ts': 11,
  'tests/integration/db/read-replicas.test.ts': 11,
  'tests/integration/process/embedded-postgres.test.ts': 9,
  'tests/integration/process/compiled-start.test.ts': 8,
  'tests/integration/db/pgbouncer.test.ts': 8,
  'tests/integration/store-credit/pgbouncer.test.ts': 6,
  'tests/integration/process/ctrl-c.test.ts': 6,
  'tests/integration/process/port-in-use.test.ts': 5,
  'tests/integration/checkout/pgbouncer.test.ts': 5,
  'tests/integration/webhooks/receiver-cli.test.ts': 3,
  'tests/integration/returns/pgbouncer.test.ts': 3,
};

class ExpectedDurationSequencer extends TestSequencer {
  /** Milliseconds: jest's duration of the file's last run, else the table's, else one from the file's size. */
  time(test) {
    const timed = super.time(test);
    if (timed !== undefined) return timed;
    const expected = expectedSeconds[path.relative(root, test.path).split(path.sep).join('/')];
    if (expected !== undefined) return expected * 1000;
    return (test.context.hasteFS.getSize(test.path) ?? 0) / 10;
  }
}

module.exports = ExpectedDurationSequencer;
