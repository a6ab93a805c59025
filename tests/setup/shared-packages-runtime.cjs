'use strict';
/**
 * jest's runtime (with the code cache of code-cache-runtime.cjs), with chosen third-party packages loaded once per
 * jest worker instead of once per test file.
 *
 * jest evaluates every module again in each test file's realm (VM context). For the heavy packages the app uses
 * (Prisma's client and its WebAssembly query compiler, pg, koa, pg-boss, ...) that costs CPU in every file twice:
 * loading them, and running their code cold (no JIT warmth carried from one file to the next). This runtime hands
 * a test file such a package as the module instance Node itself loaded in the worker's own realm (once, with the
 * worker's `import()`), wrapped as a synthetic module of the file's realm. Only package code is shared: the app's
 * own modules, and every object a file makes (its app, Prisma client, pools, server), are new in every file.
 *
 * Two realms then meet, and what crosses between them was checked package by package:
 * - Dates: packages make theirs with the worker's Date and some check the ones they are given with
 *   `instanceof Date`; the file's realm gets a Date class of its own that is a subclass of the worker's (see
 *   fileDate). The app itself checks Dates and errors in a realm-independent way (`util.types`).
 * - Globals a package reads are the worker's: a package whose behaviour a test changes through its own realm's
 *   globals stays per file. Left out for that reason: jose (a test fakes the clock it signs with), openapi-fetch
 *   (a test replaces the `fetch` the SDK's clients pick up), prom-client (awaits a metric's collect() only when
 *   it is `instanceof Promise`, which the app's async functions are not across realms).
 * - State a package keeps at module level is kept for the worker: Prisma's WebAssembly query compiler is loaded
 *   once per worker (its own cache, by provider); pg's type parsers and defaults, koa, the router, pg-boss, pino,
 *   koa-body, argon2, cuid2, nodemailer, stripe (a client per project; its requests go through Node's http to the
 *   tests' stand-in server), lru-cache and ipaddr.js keep nothing a test changes. lru-cache reads the worker's
 *   clock (`performance.now`): no test fakes the clock to age a cache entry (the one that fakes it signs a token
 *   with jose, which stays per file). @opentelemetry/api (Prisma's tracing) keeps its registry on the worker's
 *   globalThis, where no test registers anything.
 *
 * TEST_SHARED_PACKAGES (comma-separated names, or `none`) replaces the list, for measuring; TEST_SHARED_DEBUG=1
 * names what is shared and which packages are still loaded per file.
 */
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const asyncHooks = require('node:async_hooks');
const vm = require('node:vm');
const Runtime = require('./code-cache-runtime.cjs').default;

const DEFAULT_SHARED = [
  '@prisma/client',
  '@prisma/adapter-pg',
  '@prisma/driver-adapter-utils',
  '@prisma/schema-engine-wasm',
  '@prisma/debug',
  'pg',
  'pg-pool',
  'pg-protocol',
  'pg-types',
  'koa',
  '@koa/router',
  'pg-boss',
  'ajv',
  'ajv-formats',
  'pino',
  'koa-body',
  '@paralleldrive/cuid2',
  'argon2',
  'nodemailer',
  // Measured with 8 files that each start the app (three alternating rounds): 8.2-8.9 CPU-s with these four
  // against 9.4-9.7 without, about 0.14 CPU-s a file.
  'stripe',
  '@opentelemetry/api',
  'lru-cache',
  'ipaddr.js',
];

const configured = process.env.TEST_SHARED_PACKAGES;
const sharedPackages = new Set(
  configured === undefined ? DEFAULT_SHARED : configured === 'none' ? [] : configured.split(',').map((s) => s.trim()),
);

const setupDir = __dirname;
/** Files of this directory loaded in the worker's realm too, with the package they wrap (its plans must be its realm's). */
const sharedSetupFiles = new Set(
  sharedPackages.has('@prisma/client') ? [path.join(setupDir, 'prisma-query-compiler.mjs')] : [],
);

/** The package a resolved path belongs to (the last `node_modules/<name>` in it), or undefined. */
function packageOf(modulePath) {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = modulePath.lastIndexOf(marker);
  if (at === -1) return undefined;
  const [first, second] = modulePath.slice(at + marker.length).split(path.sep);
  return first.startsWith('@') ? `${first}/${second}` : first;
}

/** Whether the module at `modulePath` is loaded once per worker. */
const isShared = (modulePath) =>
  path.isAbsolute(modulePath) && (sharedSetupFiles.has(modulePath) || sharedPackages.has(packageOf(modulePath)));

const debug = Boolean(process.env.TEST_SHARED_DEBUG);
const reported = new Set();

/** The worker's own module namespaces (ES modules) and exports (CommonJS), by path. */
const namespaces = new Map();
const importOnce = (modulePath) => {
  let namespace = namespaces.get(modulePath);
  if (!namespace) {
    if (debug) process.stderr.write(`shared: ${modulePath}\n`);
    namespaces.set(modulePath, (namespace = import(pathToFileURL(modulePath).href)));
  }
  return namespace;
};

/** A module of the test file's realm (`context`) that exports what `namespace` exports. */
async function syntheticOf(namespace, modulePath, context) {
  const names = Object.keys(namespace);
  const module = new vm.SyntheticModule(
    names,
    function () {
      for (const name of names) this.setExport(name, namespace[name]);
    },
    { context, identifier: `shared:${modulePath}` },
  );
  await module.link(() => {
    throw new Error('a synthetic module has no imports');
  });
  await module.evaluate();
  return module;
}

const WorkerDate = Date;

/**
 * The Date of a test file's realm: a subclass of the worker's Date, so that the Dates a file makes are Dates to
 * the shared packages too (pg-boss checks a startAfter with `instanceof Date`), and Dates the packages make
 * (Prisma's, pg's) are `instanceof Date` in the file. A class per file: what a file changes on its Date (a
 * `jest.spyOn(Date, 'now')`, fake timers) stays in that file and never reaches the packages.
 */
function fileDate() {
  const FileDate = class Date extends WorkerDate {
    static [Symbol.hasInstance](value) {
      return this === FileDate ? value instanceof WorkerDate : Function.prototype[Symbol.hasInstance].call(this, value);
    }
  };
  return FileDate;
}

class SharedPackagesRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    if (sharedPackages.size > 0) this._environment.global.Date = fileDate();
    /** This file's synthetic modules, by path (the registry is per file, as the runtime is). */
    const synthetics = new Map();
    const loader = this.esmLoader;
    const resolveModule = loader.resolveModule.bind(loader);
    loader.resolveModule = async (specifier, referencingIdentifier, context) => {
      const resolved = this.#sharedPathOf(referencingIdentifier, specifier, 'esm');
      if (resolved === undefined) return resolveModule(specifier, referencingIdentifier, context);
      let module = synthetics.get(resolved);
      if (!module)
        synthetics.set(resolved, (module = importOnce(resolved).then((ns) => syntheticOf(ns, resolved, context))));
      return module;
    };
  }

  /**
   * The path `specifier` (imported or required from `from`) resolves to when that module is shared, else undefined.
   * A relative specifier never does: it stays inside the package (or the app) that the importer belongs to.
   */
  #sharedPathOf(from, specifier, kind) {
    if (typeof specifier !== 'string' || specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
    if (specifier.startsWith('data:') || specifier === '@jest/globals') return undefined;
    if (this._resolution.isCoreModule(specifier)) return undefined;
    // A module a test mocks (jest.mock, jest.unstable_mockModule) is jest's to hand out.
    const mocked =
      kind === 'esm'
        ? this.mockState.shouldMockEsmSync(from, specifier)
        : this.mockState.shouldMockCjs(from, specifier);
    if (mocked.shouldMock) return undefined;
    let resolved;
    try {
      resolved =
        kind === 'esm' ? this._resolution.resolveEsm(from, specifier) : this._resolution.resolveCjs(from, specifier);
    } catch {
      return undefined; // jest's own path reports it
    }
    if (isShared(resolved)) return resolved;
    if (debug && resolved.includes('/node_modules/') && !reported.has(resolved)) {
      reported.add(resolved);
      process.stderr.write(`per file: ${resolved}\n`);
    }
    return undefined;
  }

  /** jest's own modules of this file (its test framework) get an async_hooks whose storages end with the file. */
  requireInternalModule(from, to) {
    if (to === 'node:async_hooks' || to === 'async_hooks') return this.#internalAsyncHooks();
    return super.requireInternalModule(from, to);
  }

  #storages = [];
  #asyncHooks;
  /**
   * jest's test framework makes an AsyncLocalStorage in each file's realm and never disables it; an enabled
   * storage stays in Node's list for the process, and every promise and async resource made afterwards walks
   * that list. Over the ~65 files of a worker that grows to a cost of its own; the file's storages are disabled
   * when the file's runtime is torn down.
   */
  #internalAsyncHooks() {
    if (!this.#asyncHooks) {
      const storages = this.#storages;
      class FileAsyncLocalStorage extends asyncHooks.AsyncLocalStorage {
        constructor(...args) {
          super(...args);
          storages.push(this);
        }
      }
      this.#asyncHooks = { ...asyncHooks, AsyncLocalStorage: FileAsyncLocalStorage };
      if (debug) process.stderr.write('internal async_hooks wrapped\n');
    }
    return this.#asyncHooks;
  }

  teardown() {
    super.teardown();
    if (debug) process.stderr.write(`disabling ${this.#storages.length} storages\n`);
    for (const storage of this.#storages.splice(0)) storage.disable();
  }

  requireModuleOrMock(from, moduleName) {
    const resolved = this.#sharedPathOf(from, moduleName, 'cjs');
    return resolved === undefined ? super.requireModuleOrMock(from, moduleName) : require(resolved);
  }
}

module.exports = SharedPackagesRuntime;
