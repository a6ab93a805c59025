/** `npm run migrate`: applies pending migrations to DATABASE_DIRECT_URL when set (a session), else DATABASE_URL. */
import { loadConfig } from '../config.js';
import { migrate } from './migrate.js';

const { databaseUrl, databaseDirectUrl } = loadConfig();
if (!databaseUrl) {
  console.error('Set DATABASE_URL; npm start migrates the embedded database by itself.');
  process.exit(2);
}
const applied = await migrate(databaseDirectUrl ?? databaseUrl);
console.log(applied.length > 0 ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
