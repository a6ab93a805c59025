import { beforeAll, describe, expect, test } from '@jest/globals';
import { seedCustomers } from '../../../src/seed/customers.seed.js';
import { useStore } from '../../setup/store.js';

const COUNT = 100_000;
const store = useStore();

beforeAll(async () => {
  const projectId = store.project.id;
  await seedCustomers(store.app.deps.db, projectId, COUNT - 20_000);
  // 20,000 more with one creation instant and one name: the id tie-breaker has to do the work there.
  await store.app.deps.db.$executeRaw`
    INSERT INTO customers (id, project_id, email, email_normalized, first_name, last_name, sort_name, status, tags, metadata, created_at, updated_at)
    SELECT 'cus_' || substr(md5('tail' || i::text), 1, 26), ${projectId}, 'tail' || i || '@seed.example', 'tail' || i || '@seed.example',
           'Tail', 'Same', 'same' || chr(1) || 'tail', 'active', ARRAY[]::text[], '{}'::jsonb, '2026-06-01T00:00:00Z', now()
    FROM generate_series(1, 20000) AS i`;
  await store.app.deps.db.$executeRawUnsafe('VACUUM ANALYZE customers');
}, 120_000);

describe('listCustomers over 100k customers', () => {
  test.each(['created_at', 'name'] as const)(
    'sort=%s: walking every page sees each customer exactly once, total stays 100000',
    async (sort) => {
      const seen = new Set<string>();
      // Collected and asserted once at the end: an expect() per customer (200,000 of them) cost a third of the
      // file's CPU (each builds an error for its stack).
      const seenTwice: string[] = [];
      const otherTotals = new Set<number>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const { data, error } = await store.api.GET('/v1/customers', {
          params: { query: { sort, limit: 100, cursor, fields: ['id'] } },
        });
        if (error) throw new Error(JSON.stringify(error));
        if (data.pagination.total !== COUNT) otherTotals.add(data.pagination.total);
        for (const customer of data.data) {
          if (seen.has(customer.id)) seenTwice.push(customer.id);
          seen.add(customer.id);
        }
        cursor = data.pagination.cursor ?? undefined;
        pages += 1;
      } while (cursor);
      expect(seenTwice).toEqual([]);
      expect([...otherTotals]).toEqual([]);
      expect(seen.size).toBe(COUNT);
      expect(pages).toBe(COUNT / 100);
    },
    300_000,
  );
});
