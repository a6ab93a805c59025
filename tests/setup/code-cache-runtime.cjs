'use strict';
/**
 * jest's runtime (jest-runtime), with a V8 code cache under the compiles it asks of node:vm, and each module's
 * transform and cached data kept for the worker.
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
 *
 * jest also transforms every module again for each test file (a new transformer per file: a hash of the source to
 * find its cache entry, that entry read from disk), and the code cache above hashed and read each source again:
 * about a fifth of an integration file's CPU. Both are kept in memory for the worker: a transform by file, project
 * and options, while the file's modification time and size stay the same (a watch-mode worker sees an edit); the
 * cached data by source text.
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

/**
 * Cached data by salt, then by source text, for the worker: a Buffer, or null for a source compiled without (see
 * above). By the source string itself, not salt + source: a kept transform hands back the same string, whose hash
 * V8 keeps, where a concatenation would be hashed whole again.
 */
const cachedDataBySalt = new Map();
const cachedDataOf = (salt) => {
  let bySource = cachedDataBySalt.get(salt);
  if (!bySource) cachedDataBySalt.set(salt, (bySource = new Map()));
  return bySource;
};

/** The cached data to compile `source` with (null: none), reading its entry once per worker. */
function cachedDataFor(source, salt) {
  const bySource = cachedDataOf(salt);
  let data = bySource.get(source);
  if (data === undefined) {
    data = mayImportDynamically(source) ? null : (readEntry(entryOf(source, salt)) ?? null);
    bySource.set(source, data);
  }
  return data;
}

/** Writes `data` (new, or replacing a rejected entry) and keeps it as the worker's cached data for `source`. */
function keepCachedData(source, salt, data) {
  writeEntry(entryOf(source, salt), data);
  cachedDataOf(salt).set(source, data);
}

const { SourceTextModule, compileFunction } = vm;
if (!SourceTextModule) throw new Error('tests/setup/code-cache-runtime.cjs: run jest with --experimental-vm-modules.');

/** An ES module compiled with the cached data of its source when there is some; writes it when there is none. */
class CachedSourceTextModule extends SourceTextModule {
  constructor(source, options = {}) {
    const cachedData = options.cachedData === undefined ? cachedDataFor(source, 'esm\0') : null;
    if (options.cachedData !== undefined || (cachedData === null && mayImportDynamically(source))) {
      super(source, options);
      return;
    }
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
    keepCachedData(source, 'esm\0', this.createCachedData());
  }
}

/** node:vm's compileFunction with the cached data of its source and parameters when there is some; writes it when there is none. */
function cachedCompileFunction(source, params = [], options = {}) {
  if (options.cachedData !== undefined || options.produceCachedData) return compileFunction(source, params, options);
  const salt = `cjs\0${params.join(',')}\0`;
  const cachedData = cachedDataFor(source, salt) ?? undefined;
  if (!cachedData && mayImportDynamically(source)) return compileFunction(source, params, options);
  const compiled = compileFunction(source, params, { ...options, cachedData, produceCachedData: !cachedData });
  if (compiled.cachedDataRejected) {
    fs.rmSync(entryOf(source, salt), { force: true });
    cachedDataOf(salt).set(source, null);
  } else if (!cachedData && compiled.cachedData) keepCachedData(source, salt, compiled.cachedData);
  return compiled;
}

vm.SourceTextModule = CachedSourceTextModule;
vm.compileFunction = cachedCompileFunction;

/** Transformed files by project, file and options, for the worker: { stamp, file } (jest's TransformResult). */
const transformedFiles = new Map();

/** The modification time and size of `filename`: a kept transform serves while they stay the same. */
function stampOf(filename) {
  const stat = fs.statSync(filename, { throwIfNoEntry: false });
  return stat ? `${stat.mtimeMs}:${stat.size}` : undefined;
}

/**
 * Makes `runtime`'s transform cache (jest-runtime's TransformCache: `transform`, `transformAsync`, and the
 * `transforms` and `sourceMaps` it records for stack traces) answer from the worker's transforms, transforming
 * only what the worker has not seen (or what changed). Off when coverage is collected (instrumenting depends on
 * the file under test).
 */
function keepTransformsForWorker(runtime) {
  const cache = runtime.transformCache;
  if (runtime._coverageOptions?.collectCoverage) return;
  const keyOf = (filename, options) => `${runtime._config.id}\0${filename}\0${JSON.stringify(options ?? null)}`;
  /** Records a kept transform as jest's own transform would, and answers its code. */
  const served = (filename, file) => {
    cache.transforms.set(filename, file);
    if (file.sourceMapPath) cache.sourceMaps.set(filename, file.sourceMapPath);
    return file.code;
  };
  const keep = (key, stamp, filename) => {
    const file = cache.transforms.get(filename);
    if (stamp !== undefined && file) transformedFiles.set(key, { stamp, file });
  };
  for (const name of ['transform', 'transformAsync']) {
    const transform = cache[name].bind(cache);
    cache[name] = (filename, options) => {
      if (options?.isInternalModule) return transform(filename, options);
      const key = keyOf(filename, options);
      const stamp = stampOf(filename);
      const kept = transformedFiles.get(key);
      if (stamp !== undefined && kept?.stamp === stamp) {
        const code = served(filename, kept.file);
        return name === 'transform' ? code : Promise.resolve(code);
      }
      const code = transform(filename, options);
      if (name === 'transform') {
        keep(key, stamp, filename);
        return code;
      }
      return code.then((transformed) => {
        keep(key, stamp, filename);
        return transformed;
      });
    };
  }
}

const JestRuntime = require('jest-runtime').default;

/** jest-runtime with the worker's transforms (keepTransformsForWorker) and the code cache above. */
class CodeCacheRuntime extends JestRuntime {
  constructor(...args) {
    super(...args);
    keepTransformsForWorker(this);
  }
}

module.exports = { ...require('jest-runtime'), default: CodeCacheRuntime };
