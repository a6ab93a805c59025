/**
 * `npm run seed -- --project <id> --products <n>`: adds a large generated catalog to a project, showing
 * progress. Uses DATABASE_URL, or the embedded database in DATA_DIR (as npm start does).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createDatabase } from '../db/client.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrate } from '../db/migrate.js';
import { seedCatalog } from './catalog.seed.js';

const { values } = parseArgs({ options: { project: { type: 'string' }, products: { type: 'string', default: '1000' } } });
const count = Number(values.products);
if (!values.project || !Number.isInteger(count) || count < 1) {
  console.error('Usage: npm run seed -- --project <proj_...> --products <count>');
  process.exit(2);
}
const config = loadConfig();
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dir: config.dataDir, persistent: true });
const url = config.databaseUrl ?? embedded!.url;
const db = createDatabase(url);
try {
  await migrate(url);
  if (!(await db.project.findUnique({ where: { id: values.project } }))) throw new Error(`No project ${values.project} in this database.`);
  const started = Date.now();
  await seedCatalog(db, values.project, count, {
    onProgress: (done, total) => console.log(`  ${done.toLocaleString('en')} / ${total.toLocaleString('en')} products`),
  });
  console.log(`Seeded ${count.toLocaleString('en')} products (2 variants each, stocked at the default location) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
  await embedded?.stop();
}
process.exit();
