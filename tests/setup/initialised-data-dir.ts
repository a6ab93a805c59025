import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildDist, exited, root, startMain, type Cleanups } from './process.js';

/**
 * DATA_DIRs as a second `npm start` finds its own: the embedded PostgreSQL initialised, migrated and stopped, the demo
 * project made and its keys in demo.json. For the process tests whose subject is not the first start (that is
 * main.test.ts's, on an empty directory): a first start runs initdb, every migration and the demo catalog, about
 * 5 CPU-seconds more than a start on an initialised directory.
 *
 * One initialised directory is made per version of the code (the compiled server's source hash and the migrations
 * name it) under os.tmpdir(), by the first test that asks, under an advisory lock of the test PostgreSQL (as
 * tests/setup/demo.ts makes the demo template), and renamed into place once complete; every caller gets a copy of its
 * own. Making one removes other versions' directories not touched for a day.
 */
const TEMPLATE_PREFIX = 'commerce-initialised-data-dir-';

/** What the initialised directory depends on: the compiled server (dist/.source-hash) and the migrations. */
function versionOfCode(): string {
  buildDist();
  return createHash('sha256')
    .update(readFileSync(path.join(root, 'dist/.source-hash')))
    .update(readdirSync(path.join(root, 'prisma/migrations')).sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/** `npm start`'s entry point run on `dataDir` until it listens, then stopped with SIGTERM: exit 0, or this throws. */
async function initialise(dataDir: string): Promise<void> {
  const cleanups: Cleanups = [];
  try {
    const server = await startMain({ DATA_DIR: dataDir }, cleanups);
    server.child.kill('SIGTERM');
    const code = await exited(server.child);
    if (code !== 0) throw new Error(`initialising ${dataDir}: the server exited ${code}:\n${server.output()}`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** Removes other versions' initialised directories last touched over a day ago (a developer's earlier runs). */
function removeOlderVersions(current: string): void {
  const parent = path.dirname(current);
  for (const name of readdirSync(parent)) {
    const other = path.join(parent, name);
    if (!name.startsWith(TEMPLATE_PREFIX) || other === current) continue;
    const touched = statSync(other, { throwIfNoEntry: false })?.mtimeMs;
    if (touched !== undefined && Date.now() - touched > 86_400_000) rmSync(other, { recursive: true, force: true });
  }
}

/** The initialised DATA_DIR of this version of the code, made now if no test has made it yet. */
async function initialisedTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `${TEMPLATE_PREFIX}${versionOfCode()}`);
  if (existsSync(dir)) return dir;
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_URL });
  await admin.connect();
  try {
    // A session lock: released when this client ends, or when its process dies.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [path.basename(dir)]);
    if (!existsSync(dir)) {
      const partial = `${dir}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      await initialise(partial);
      renameSync(partial, dir);
      removeOlderVersions(dir);
    }
  } finally {
    await admin.end();
  }
  return dir;
}

/** A new DATA_DIR (removed at cleanup) holding a copy of an initialised one, owners and modes kept (cp -a). */
export async function initialisedDataDir(prefix: string, cleanups: Cleanups): Promise<string> {
  const template = await initialisedTemplate();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  execFileSync('cp', ['-a', `${template}/.`, dataDir]);
  return dataDir;
}
