import type { Database } from '../db/client.js';

const FIRST_NAMES = [
  'Ann',
  'Ben',
  'Chloe',
  'David',
  'Emma',
  'Felix',
  'Grace',
  'Hugo',
  'Ines',
  'Jonas',
  'Kira',
  'Liam',
  'Mia',
  'Noah',
  'Olivia',
  'Paul',
  'Quinn',
  'Rosa',
  'Sam',
  'Tara',
];
const LAST_NAMES = [
  'Anders',
  'Berger',
  'Costa',
  'Dubois',
  'Evans',
  'Fischer',
  'Garcia',
  'Hansen',
  'Ivanova',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Müller',
  'Nowak',
  'Olsen',
  'Petrov',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Weber',
];

/**
 * Inserts `count` realistic customers into the project in batches, straight in SQL (no store events):
 * for benchmarks and large-list tests. Names, statuses, order counts and spend vary deterministically;
 * creation times spread over the past year. `createdAt` may pin every row to one instant (tie tests).
 */
export async function seedCustomers(
  db: Database,
  projectId: string,
  count: number,
  options: { batchSize?: number; createdAt?: Date; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const batchSize = options.batchSize ?? 10_000;
  for (let start = 0; start < count; start += batchSize) {
    const end = Math.min(count, start + batchSize);
    await db.$executeRaw`
      INSERT INTO customers (id, project_id, email, email_normalized, first_name, last_name, sort_name, status, tags,
                             metadata, order_count, total_spent, created_at, updated_at)
      SELECT 'cus_' || substr(md5(${projectId} || i::text), 1, 26),
             ${projectId},
             'customer' || i || '@seed.example',
             'customer' || i || '@seed.example',
             (${FIRST_NAMES}::text[])[1 + i % 20],
             (${LAST_NAMES}::text[])[1 + (i / 20) % 20],
             lower((${LAST_NAMES}::text[])[1 + (i / 20) % 20]) || chr(1) || lower((${FIRST_NAMES}::text[])[1 + i % 20]),
             CASE WHEN i % 10 = 3 THEN 'inactive' ELSE 'active' END,
             CASE WHEN i % 7 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
             '{}'::jsonb,
             i % 21,
             (i % 21) * 4900,
             coalesce(${options.createdAt ?? null}::timestamptz, now() - make_interval(secs => (i * 317) % 31536000)),
             now()
      FROM generate_series(${start + 1}::int, ${end}::int) AS i`;
    options.onProgress?.(end, count);
  }
  await db.$executeRawUnsafe('ANALYZE customers');
}
