/**
 * `npm run scale:check`: lists every table and constraint of the database that is not yet ready to be distributed
 * by project_id (docs/scale-out.md); `--strict` exits 1 when there is one. Uses DATABASE_DIRECT_URL or
 * DATABASE_URL, migrated.
 */
import { loadConfig } from '../config.js';
import { scaleProblems, scaleReport } from './scale-check.js';

const { databaseUrl, databaseDirectUrl } = loadConfig();
if (!databaseUrl) {
  console.error('Set DATABASE_URL to a migrated database (npm run migrate).');
  process.exit(2);
}
const problems = await scaleProblems(databaseDirectUrl ?? databaseUrl);
process.stdout.write(scaleReport(problems));
if (process.argv.includes('--strict') && problems.length > 0) process.exit(1);
