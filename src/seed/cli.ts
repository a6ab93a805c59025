/**
 * `npm run seed -- --project <id> --products <n>`: adds a large generated catalog to a project, showing
 * progress. Uses DATABASE_URL, or the embedded database in DATA_DIR: the running server's PostgreSQL when
 * `npm start` has it up (left running), else one started for the run and stopped afterwards.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createDatabase } from '../db/client.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrate } from '../db/migrate.js';
import { seedCatalog } from './catalog.seed.js';
import { progress } from './progress.js';

const USAGE = `Usage: npm run seed -- --project <proj_...> [--products <count>]

Adds <count> generated products (two variants each, stocked at the default location) to a project.

Options:
  --project <id>      the project to add products to (required; the demo project's id is in DATA_DIR/demo.json)
  --products <count>  how many products to add (default 1000)
  -h, --help          show this help

Database: DATABASE_URL if set, else the embedded PostgreSQL in DATA_DIR (default ./.data). When a running
npm start owns that PostgreSQL, the seed connects to it and leaves it running.`;

let values: { project?: string; products: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      project: { type: 'string' },
      products: { type: 'string', default: '1000' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const count = Number(values.products);
if (!values.project || !Number.isInteger(count) || count < 1) {
  console.error(USAGE);
  process.exit(2);
}
const projectId = values.project;

const config = loadConfig();
const embedded = config.databaseUrl
  ? undefined
  : await startEmbeddedPostgres({ dir: config.dataDir, persistent: true, whenInUse: 'reuse' }).catch((error: Error) => {
      console.error(error.message);
      process.exit(1);
    });
if (embedded?.ownerPid)
  console.log(
    `Using the PostgreSQL of the running process ${embedded.ownerPid} (DATA_DIR ${config.dataDir}); it stays up.`,
  );
const url = config.databaseUrl ?? embedded!.url;
const db = createDatabase(url);
try {
  await migrate(url);
  if (!(await db.project.findUnique({ where: { id: projectId } })))
    throw new Error(`No project ${projectId} in this database.`);
  const started = Date.now();
  const bar = progress('Seeding', count, 'products');
  await seedCatalog(db, projectId, count, { onProgress: (done) => bar.update(done) }).finally(() => bar.stop());
  console.log(
    `Seeded ${count.toLocaleString('en')} products (2 variants each, stocked at the default location) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
  await embedded?.stop();
}
process.exit();
