/**
 * Jest, native ESM: TypeScript through swc, tests against a real PostgreSQL (see tests/setup).
 * Three projects share one global setup (one PostgreSQL and one migrated template database per run):
 * - fast: unit tests and integration tests against the in-process app;
 * - slow: tests that spawn processes (the server, Prism, Chromium, PgBouncer, the webhook receiver, the SDK package build and
 *   install) or send or walk 100k of something (the contract fuzzer's bounded run, the 100k-customer pagination);
 * - timed: tests that bound how long the code itself takes (event-loop stalls, latency), which other suites running
 *   beside them on the same cores would measure instead: run alone, after the others (`npm test`, `.ci/run`).
 * `npm test` runs fast and slow side by side, then timed alone (`--runInBand`); `npm run test:fast` only fast.
 */
// Paths from the root: a directory (ends in /) or a file.
const slowTests = [
  'tests/integration/process/',
  'tests/integration/customers/customer-pagination-100k.test.ts',
  'tests/integration/sdk/package.test.ts',
  'tests/integration/webhooks/process.test.ts',
  'tests/integration/db/pgbouncer.test.ts',
  'tests/integration/checkout/pgbouncer.test.ts',
  'tests/integration/returns/pgbouncer.test.ts',
  'tests/integration/discounts/pgbouncer.test.ts',
  'tests/integration/store-credit/pgbouncer.test.ts',
  'tests/integration/db/read-replicas.test.ts',
  'tests/integration/webhooks/receiver-cli.test.ts',
  'tests/integration/mock/prism-mock.test.ts',
  'tests/integration/mock/prism-proxy-fields.test.ts',
  'tests/integration/docs/docs-page.test.ts',
  'tests/fuzz/',
];

// The timed project: its files bound an event-loop stall or a latency of the process under test, so they run alone.
const timedTests = [
  'tests/integration/process/index-build-bound.test.ts',
  // A synchronous replica's commits and a sleeping carrier's timeouts: beside CI's other suites on two cores, their
  // setup answered 503 and ran past 30 s (two clean-clone runs of 967b433).
  'tests/integration/process/failover.test.ts',
  'tests/integration/process/shipping-carrier.test.ts',
  // Known and unknown emails answered in the same time (within 25 ms): beside CI's other suites the two medians
  // drifted 29.7 ms apart.
  'tests/integration/customer-auth/password-reset-timing.test.ts',
];

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  transform: {
    // Generated code (megabytes of validators and the document) without an inline source map: every test file
    // reads and compiles each module again, and the map would double what it reads.
    '/src/generated/.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' }, sourceMaps: true },
    ],
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  extensionsToTreatAsEsm: ['.ts'],
  // The SDK package by name, as third parties import it (from its source; tests/integration/sdk builds the package).
  moduleNameMapper: {
    '^@commerce-api/sdk$': '<rootDir>/sdk/src/index.ts',
    // Prisma's query compiler (the build prisma/schema.prisma's compilerBuild names) with its plans kept for the whole
    // worker, not one test file (the file says why it is exact).
    '^@prisma/client/runtime/query_compiler_small_bg\\.postgresql\\.mjs$':
      '<rootDir>/tests/setup/prisma-query-compiler.mjs',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  // The pooler probe records nothing unless TEST_POOLER_RECORD names a file (.ci/run's PgBouncer pass reads it).
  setupFilesAfterEnv: ['<rootDir>/tests/setup/contract-guard.ts', '<rootDir>/tests/setup/pooler-probe.ts'],
  // jest-runtime with a V8 code cache under its module compiles (tests/setup/code-cache-runtime.cjs) and the heavy
  // third-party packages loaded once per worker instead of once per file (each file says why and how it stays correct).
  runtime: '<rootDir>/tests/setup/shared-packages-runtime.cjs',
};

export default {
  projects: [
    {
      ...shared,
      displayName: 'fast',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...[...slowTests, ...timedTests].map((p) => `<rootDir>/${p}`)],
    },
    {
      ...shared,
      displayName: 'slow',
      testMatch: slowTests.map((p) => `<rootDir>/${p}${p.endsWith('/') ? '**/*.test.ts' : ''}`),
      testPathIgnorePatterns: ['/node_modules/', ...timedTests.map((p) => `<rootDir>/${p}`)],
    },
    {
      ...shared,
      displayName: 'timed',
      testMatch: timedTests.map((p) => `<rootDir>/${p}`),
    },
  ],
  // Global (not per project), so both projects share one run of each.
  globalSetup: '<rootDir>/tests/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.mjs',
  maxWorkers: 2,
  // Long files first on a machine that has never run them (the file says why).
  testSequencer: '<rootDir>/tests/setup/test-sequencer.cjs',
  // Read from the global config (jest-circus ignores a project's), for tests and hooks alike.
  testTimeout: 30_000,
};
