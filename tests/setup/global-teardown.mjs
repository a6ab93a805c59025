import { rmSync } from 'node:fs';

/** Stops the throwaway PostgreSQL and deletes its files. */
export default async function globalTeardown() {
  const started = globalThis.__embeddedPostgres;
  if (!started) return;
  await started.embedded.stop();
  rmSync(started.dir, { recursive: true, force: true });
}
