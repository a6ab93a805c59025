import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createDatabase, poolOf } from '../../../src/db/client.js';
import { preparedStatement } from '../../../src/db/prepared.js';
import { liveCustomerById } from '../../../src/modules/customers/customers.statements.js';
import { createWebhook, listDeliveries } from '../../factories/webhook.factory.js';
import { useStore } from '../../setup/store.js';

// The customer read by id and the create run as prepared statements on the pool (src/db/prepared.ts), not
// through Prisma's client: these tests hold them to what the Prisma path returns and writes.
const store = useStore();

const FIELDS = {
  id: true,
  email: true,
  firstName: true,
  lastName: true,
  phone: true,
  company: true,
  status: true,
  orderCount: true,
  totalSpent: true,
  firstOrderAt: true,
  lastOrderAt: true,
  tags: true,
  metadata: true,
  activePriceKey: true,
  locale: true,
  taxNumber: true,
  taxNumberType: true,
  createdAt: true,
  updatedAt: true,
} as const;

const full = (email: string) => ({
  email,
  first_name: 'Zoë',
  last_name: "O'Brien",
  phone: '+49 30 1234567',
  company: 'Åkesson & Söner',
  status: 'inactive' as const,
  tags: ['vip', 'Großhandel', 'a,b'],
  metadata: { source: 'fair', quoted: 'say "hi"\n', vip: true, ratio: 0.25, big: 12345678901234 },
  locale: 'de-DE',
  tax_number: 'DE123456789',
  tax_number_type: 'vat' as const,
});

describe('customer prepared statements', () => {
  test("the read by id returns exactly Prisma's row: bigint beyond 2^53, timestamps to the millisecond, json, arrays, nulls", async () => {
    const created = await store.api.POST('/v1/customers', { body: full('prepared-read@example.com') });
    expect(created.error).toBeUndefined();
    const id = created.data!.data.id;
    const db = store.app.deps.db;
    await db.$executeRaw`UPDATE customers SET total_spent = 9007199254740993, order_count = 7,
      first_order_at = '2024-02-29T23:59:59.123Z', last_order_at = '2026-01-01T00:00:00.001+05:30' WHERE id = ${id}`;
    const sparse = await store.api.POST('/v1/customers', {
      body: { email: 'prepared-sparse@example.com', first_name: 'S', last_name: 'P' },
    });

    for (const customerId of [id, sparse.data!.data.id]) {
      const prepared = await liveCustomerById(poolOf(db)!, store.project.id, customerId);
      const prisma = await db.customer.findUnique({ where: { id: customerId }, select: FIELDS });
      expect(prepared).toEqual(prisma);
      expect(typeof prepared!.totalSpent).toBe('bigint');
      expect(prepared!.createdAt).toBeInstanceOf(Date);
    }
    const read = await store.api.GET('/v1/customers/{id}', { params: { path: { id } } });
    expect(read.data!.data).toMatchObject({
      order_count: 7,
      first_order_at: '2024-02-29T23:59:59.123Z',
      last_order_at: '2025-12-31T18:30:00.001Z',
      tags: full('').tags,
    });
  });

  test('the read by id answers 404 for a deleted customer, another project id and an unknown id', async () => {
    const created = await store.api.POST('/v1/customers', {
      body: { email: 'prepared-gone@example.com', first_name: 'G', last_name: 'One' },
    });
    const id = created.data!.data.id;
    expect((await store.api.DELETE('/v1/customers/{id}', { params: { path: { id } } })).response.status).toBe(204);
    const pool = poolOf(store.app.deps.db)!;
    expect(await liveCustomerById(pool, store.project.id, id)).toBeUndefined();
    const live = await store.api.POST('/v1/customers', {
      body: { email: 'prepared-live@example.com', first_name: 'L', last_name: 'Ive' },
    });
    expect(await liveCustomerById(pool, 'proj_someone_else', live.data!.data.id)).toBeUndefined();
    for (const missing of [id, 'cus_unknown']) {
      const answer = await store.api.GET('/v1/customers/{id}', { params: { path: { id: missing } } });
      expect(answer.response.status).toBe(404);
      expect(answer.error).toEqual({ error: { code: 'not_found', message: 'Customer not found.' } });
    }
  });

  test('a create in one statement stores what the transactional path stores: the same customer row and store event', async () => {
    const db = store.app.deps.db;
    // An Idempotency-Key runs the create inside the key's transaction, so through Prisma; without one, the prepared statement.
    const keyed = await store.api.POST('/v1/customers', {
      body: full('prepared-keyed@example.com'),
      params: { header: { 'Idempotency-Key': 'prepared-create-1' } },
    });
    const plain = await store.api.POST('/v1/customers', { body: full('prepared-plain@example.com') });
    expect([keyed.response.status, plain.response.status]).toEqual([201, 201]);
    const [a, b] = await Promise.all(
      [keyed, plain].map((answer) => db.customer.findUniqueOrThrow({ where: { id: answer.data!.data.id } })),
    );
    const comparable = ({ id: _id, email: _email, emailNormalized, createdAt, updatedAt, ...rest }: typeof a) => ({
      ...rest,
      localPart: emailNormalized.split('@')[0].replace(/keyed|plain/, ''),
      sameTimes: createdAt.getTime() === updatedAt.getTime(),
    });
    expect(comparable(b)).toEqual(comparable(a));
    expect(b.emailNormalized).toBe('prepared-plain@example.com');

    const events = await Promise.all(
      [a, b].map((customer) => db.storeEvent.findMany({ where: { resourceId: customer.id } })),
    );
    expect(events.map((list) => list.length)).toEqual([1, 1]);
    const shape = (event: (typeof events)[0][0], customer: typeof a) => ({
      type: event.type,
      resourceType: event.resourceType,
      actorType: event.actorType,
      actorId: event.actorId,
      projectId: event.projectId,
      metadata: event.metadata,
      summary: event.summary.replace(customer.id, '<id>'),
    });
    expect(shape(events[1][0], b)).toEqual(shape(events[0][0], a));
    expect(shape(events[1][0], b)).toMatchObject({ type: 'customer.created', summary: 'Customer <id> created' });
    // One statement: the event carries the customer's creation time exactly.
    expect(events[1][0].createdAt).toEqual(b.createdAt);
    // The API answers with the stored row.
    expect(plain.data!.data).toMatchObject({
      email: 'prepared-plain@example.com',
      status: 'inactive',
      created_at: b.createdAt.toISOString(),
      metadata: full('').metadata,
    });
  });

  test('a duplicate email is 409 on email in one statement too, and records no event; the totals after it are exact', async () => {
    const first = await store.api.POST('/v1/customers', {
      body: { email: 'Prepared-Dup@example.com', first_name: 'D', last_name: 'Up' },
    });
    expect(first.response.status).toBe(201);
    const before = await store.app.deps.db.storeEvent.count({ where: { projectId: store.project.id } });
    const duplicate = await store.api.POST('/v1/customers', {
      body: { email: 'prepared-dup@EXAMPLE.com', first_name: 'D', last_name: 'Up' },
    });
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.error).toEqual({
      error: { code: 'conflict', message: 'A customer with this email already exists.', field: 'email' },
    });
    expect(await store.app.deps.db.storeEvent.count({ where: { projectId: store.project.id } })).toBe(before);
    const list = await store.api.GET('/v1/customers', { params: { query: { limit: 1 } } });
    expect(list.data!.pagination.total).toBe(
      await store.app.deps.db.customer.count({ where: { projectId: store.project.id, deletedAt: null } }),
    );
  });

  test('with a webhook listening to customer.created the create runs in a transaction with the fan-out; listening to something else, it does not queue', async () => {
    const other = await createWebhook(store.api, 'https://hooks.example.com/other', { events: ['customer.deleted'] });
    await store.api.POST('/v1/customers', {
      body: { email: 'prepared-hook-1@example.com', first_name: 'H', last_name: 'One' },
    });
    expect(await listDeliveries(store.api, other.id)).toEqual([]);
    const listening = await createWebhook(store.api, 'https://hooks.example.com/created', {
      events: ['customer.created'],
    });
    const created = await store.api.POST('/v1/customers', {
      body: { email: 'prepared-hook-2@example.com', first_name: 'H', last_name: 'Two' },
    });
    expect(created.response.status).toBe(201);
    const deliveries = await listDeliveries(store.api, listening.id);
    expect(deliveries.map((d) => d.event_type)).toEqual(['customer.created']);
  });

  test('in a database whose TimeZone is not UTC, Prisma and the prepared statements still agree on every time (sessions are pinned to UTC)', async () => {
    const db = store.app.deps.db;
    const [{ name }] = await db.$queryRaw<Array<{ name: string }>>`SELECT current_database() AS name`;
    await db.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone = 'America/New_York'`);
    const fresh = createDatabase(store.app.deps.config.databaseUrl!, 2);
    try {
      const [{ zone }] = await fresh.$queryRaw<Array<{ zone: string }>>`SELECT current_setting('TimeZone') AS zone`;
      expect(zone).toBe('UTC');
      const at = new Date('2026-03-08T06:30:00.250Z'); // New York's switch to daylight time that night
      const written = await fresh.customer.create({
        data: {
          id: 'cus_timezoneprobe',
          projectId: store.project.id,
          email: 'tz@example.com',
          emailNormalized: 'tz@example.com',
          firstName: 'T',
          lastName: 'Z',
          sortName: 'z\u0001t',
          tags: [],
          metadata: {},
          firstOrderAt: at,
          createdAt: at,
          updatedAt: at,
        },
      });
      const prepared = await liveCustomerById(poolOf(fresh)!, store.project.id, written.id);
      expect(prepared!.createdAt.toISOString()).toBe('2026-03-08T06:30:00.250Z');
      expect(prepared).toEqual(await fresh.customer.findUnique({ where: { id: written.id }, select: FIELDS }));
      const [{ utc }] = await fresh.$queryRaw<
        Array<{ utc: string }>
      >`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS utc FROM customers WHERE id = ${written.id}`;
      expect(utc).toBe('2026-03-08T06:30:00.250');
    } finally {
      await fresh.$disconnect();
      await db.$executeRawUnsafe(`ALTER DATABASE "${name}" RESET timezone`);
    }
  });

  test('a statement a migration made stale (its result type changed) is prepared again and answers', async () => {
    const db = store.app.deps.db;
    await db.$executeRawUnsafe('CREATE TABLE prepared_probe (v int)');
    await db.$executeRawUnsafe('INSERT INTO prepared_probe VALUES (1)');
    const pool = new pg.Pool({ connectionString: store.app.deps.config.databaseUrl!, max: 1 }); // one connection: it holds the prepared plan
    try {
      const probe = preparedStatement<{ v: unknown }>('test_prepared_probe', 'SELECT * FROM prepared_probe');
      expect(await probe(pool, [])).toEqual([{ v: 1 }]);
      await db.$executeRawUnsafe('ALTER TABLE prepared_probe ALTER COLUMN v TYPE text');
      expect(await probe(pool, [])).toEqual([{ v: '1' }]);
      expect(await probe(pool, [])).toEqual([{ v: '1' }]);
    } finally {
      await pool.end();
      await db.$executeRawUnsafe('DROP TABLE prepared_probe');
    }
  });

  test('after $disconnect a client has no pool for prepared statements (its reads go through Prisma again)', async () => {
    const fresh = createDatabase(store.app.deps.config.databaseUrl!, 1);
    expect(poolOf(fresh)).toBeInstanceOf(pg.Pool);
    await fresh.$connect();
    await fresh.$disconnect();
    expect(poolOf(fresh)).toBeUndefined();
  });
});
