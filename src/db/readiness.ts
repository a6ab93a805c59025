import type { Database } from './client.js';
import { readMigrations } from './migrate.js';

let expected: string[] | undefined;

/**
 * Why this process cannot serve yet, or undefined when it can: the database does not answer, or a migration
 * this process's code carries is not applied (another process is still migrating, or none has).
 */
export async function unreadyReason(db: Database): Promise<string | undefined> {
  expected ??= readMigrations().map((migration) => migration.name);
  let applied: Array<{ migration_name: string }>;
  try {
    applied = await db.$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  } catch {
    return 'The database does not answer.';
  }
  const done = new Set(applied.map((row) => row.migration_name));
  const pending = expected.filter((name) => !done.has(name)).length;
  if (pending === 0) return undefined;
  return pending === 1 ? '1 migration is not applied yet.' : `${pending} migrations are not applied yet.`;
}
