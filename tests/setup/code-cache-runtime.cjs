'use strict';
/**
 * jest's runtime (jest-runtime, unchanged), with a V8 code cache under the compiles it asks of node:vm.
 *
 * jest evaluates every module again in each test file's registry, and V8 parses and compiles each one from
 * scratch every time (about 0.4 s of CPU per integration file: the generated validators, Prisma's runtime, the
 * app's ~300 modules). This file, loaded once per jest worker (the `runtime` option of jest.config.mjs), wraps
 * node:vm's `SourceTextModule` (ES modules) and `compileFunction` (CommonJS) so that each compile hands V8 the code
 * cache of an earlier compile of the same source, and writes one when there is none.
 *
 * The cache is safe to lose or to find stale: it lives under node_modules/.cache, one file per source (named by
 * the hash of the source text, in a directory per Node version and architecture); V8 checks the source and its
 * own version and flags, rejects what does not match, and the module is then compiled as without a cache (and
 * the entry rewritten). Sources that contain `import(` are compiled without it: on Node 20 a module made from
 * cached data loses its dynamic-import callback ("A dynamic import callback was not specified").
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const cacheDir = path.join(__dirname, '../../node_modules/.cache/v8-code-cache', `${process.version}-${process.arch}`);

/** True when the source may call `import()`, which cached data would break (see above). */
const mayImportDynamically = (source) => /\bimport\s*\(/.test(source);

const entryOf = (source, salt) => path.join(cacheDir, createHash('sha1').update(salt).update(source).digest('hex'));

/** The cached data of `entry`, or undefined when there is none (or it cannot be read). */
function readEntry(entry) {
  try {
    return fs.readFileSync(entry);
  } catch {
    return undefined;
  }
}

/** Writes `data` for `entry` whole or not at all (two workers may write the same entry); a failure only loses the cache. */
function writeEntry(entry, data) {
  const partial = `${entry}.${process.pid}`;
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.writeFileSync(partial, data);
    fs.renameSync(partial, entry);
  } catch {
    fs.rmSync(partial, { force: true });
  }
}

const { SourceTextModule, compileFunction } = vm;
if (!SourceTextModule) throw new Error('tests/setup/code-cache-runtime.cjs: run jest with --experimental-vm-modules.');

/** An ES module compiled with the cached data of its source when there is some; writes it when there is none. */
class CachedSourceTextModule extends SourceTextModule {
  constructor(source, options = {}) {
    if (options.cachedData !== undefined || mayImportDynamically(source)) {
      super(source, options);
      return;
    }
    const entry = entryOf(source, 'esm\0');
    const cachedData = readEntry(entry);
    if (cachedData) {
      try {
        super(source, { ...options, cachedData });
        return;
      } catch (error) {
        if (error?.code !== 'ERR_VM_MODULE_CACHED_DATA_REJECTED') throw error;
      }
    }
    super(source, options);
    // Node creates cached data only before the module is evaluated: the top level and what V8 compiled eagerly.
    writeEntry(entry, this.createCachedData());
  }
}

/** node:vm's compileFunction with the cached data of its source and parameters when there is some; writes it when there is none. */
function cachedCompileFunction(source, params = [], options = {}) {
  if (options.cachedData !== undefined || options.produceCachedData || mayImportDynamically(source))
    return compileFunction(source, params, options);
  const entry = entryOf(source, `cjs\0${params.join(',')}\0`);
  const cachedData = readEntry(entry);
  const compiled = compileFunction(source, params, { ...options, cachedData, produceCachedData: !cachedData });
  if (compiled.cachedDataRejected) fs.rmSync(entry, { force: true });
  else if (!cachedData && compiled.cachedData) writeEntry(entry, compiled.cachedData);
  return compiled;
}

vm.SourceTextModule = CachedSourceTextModule;
vm.compileFunction = cachedCompileFunction;

module.exports = require('jest-runtime');
