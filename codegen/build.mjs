/**
 * `node codegen/build.mjs [--if-stale]`: compiles src/ to dist/ as plain ES modules, one
 * file per source file, with esbuild (type checking is `npm test`'s and `npm run typecheck`'s job; this is
 * what `npm start` runs). `--if-stale` builds only when the sources changed since dist/ was built (a hash
 * of every source file), so `npm start` on a fresh clone or after a pull builds once, in about a second.
 * Concurrent starts build once: the first takes a lock directory, the others wait for it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const srcDir = path.join(root, 'src');
const distDir = path.join(root, 'dist');
const lockDir = path.join(root, 'dist.lock');
const hashFile = path.join(distDir, '.source-hash');
// Bump when the build options below change, so existing dist/ directories are rebuilt.
const BUILD_VERSION = '1';

/** Every .ts file the server runs, sorted. */
function sourceFiles(dir = srcDir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
    })
    .sort();
}

function sourceHash(files) {
  const hash = createHash('sha256').update(BUILD_VERSION);
  for (const file of files) hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const isFresh = (hash) => existsSync(hashFile) && readFileSync(hashFile, 'utf8') === hash;

/** Takes the build lock, waiting (up to 2 minutes) for another build; a lock whose process is gone is taken over. */
async function lock() {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path.join(lockDir, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      const ownerAlive =
        owner > 0 &&
        (() => {
          try {
            process.kill(owner, 0);
            return true;
          } catch {
            return false;
          }
        })();
      const age = Date.now() - statSync(lockDir).mtimeMs;
      if (!ownerAlive && age > 2000) rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`${lockDir} is held by process ${owner}; remove it if no build is running.`, {
          cause: error,
        });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const files = sourceFiles();
const hash = sourceHash(files);
if (process.argv.includes('--if-stale') && isFresh(hash)) process.exit(0);

await lock();
try {
  if (!(process.argv.includes('--if-stale') && isFresh(hash))) {
    const started = Date.now();
    const tmpDir = path.join(root, `dist.tmp-${process.pid}`);
    rmSync(tmpDir, { recursive: true, force: true });
    await build({
      entryPoints: files,
      outdir: tmpDir,
      outbase: srcDir,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      bundle: false,
      logLevel: 'warning',
    });
    writeFileSync(path.join(tmpDir, '.source-hash'), hash);
    // Swap in the new build whole: a start never sees half of one.
    const oldDir = path.join(root, `dist.old-${process.pid}`);
    if (existsSync(distDir)) renameSync(distDir, oldDir);
    renameSync(tmpDir, distDir);
    rmSync(oldDir, { recursive: true, force: true });
    console.error(`Built dist/ from src/ (${files.length} files, ${Date.now() - started} ms).`);
  }
} finally {
  rmSync(lockDir, { recursive: true, force: true });
}
