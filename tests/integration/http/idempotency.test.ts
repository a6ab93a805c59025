import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import Koa from 'koa';
import pg from 'pg';
import type { OperationMeta } from '../../../src/generated/operations.js';
import { authenticate } from '../../../src/http/middleware/auth.js';
import { jsonBody } from '../../../src/http/middleware/body.js';
import { errorHandler } from '../../../src/http/middleware/errors.js';
import { idempotency } from '../../../src/http/middleware/idempotency.js';
import { AppError } from '../../../src/shared/errors.js';
import type { RequestState } from '../../../src/http/state.js';
import { purgeIdempotencyKeys } from '../../../src/shared/idempotency-keys.js';
import { idempotencyHeader } from '@commerce-api/sdk';
import { newId } from '../../../src/shared/ids.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useApp } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';
import { eventually } from '../../setup/wait.js';

const app = useApp();

const HOUR = 60 * 60 * 1000;
const projectsNamed = (name: string) => app.deps.db.project.count({ where: { name } });

describe('createProject with Idempotency-Key', () => {
  test('a replay answers the original status and body, marked Idempotent-Replayed, and creates nothing', async () => {
    const header = idempotencyHeader();
    const first = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'Replay Store' },
    });
    const second = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'Replay Store' },
    });
    expect(first.response.status).toBe(201);
    expect(second.response.status).toBe(201);
    expect(second.data).toEqual(first.data);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(await projectsNamed('Replay Store')).toBe(1);
  });

  test('the same key with a different body answers 409 conflict', async () => {
    const header = idempotencyHeader();
    await app.platform.POST('/platform/v1/projects', { params: { header }, body: { name: 'Body A' } });
    const other = await app.platform.POST('/platform/v1/projects', { params: { header }, body: { name: 'Body B' } });
    expect(other.response.status).toBe(409);
    expect(other.error!.error).toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    expect(await projectsNamed('Body B')).toBe(0);
  });

  test('the same body with keys in another order is the same request', async () => {
    const header = idempotencyHeader();
    const a = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'Order Store', plan: 'pro' },
    });
    const b = await fetch(`${app.baseUrl}/platform/v1/projects`, {
      method: 'POST',
      headers: {
        ...header,
        Authorization: `Bearer ${app.deps.config.platformToken}`,
        'Content-Type': 'application/json',
      },
      body: '{"plan":"pro","name":"Order Store"}',
    });
    expect(b.status).toBe(201);
    expect(await json(b)).toEqual(a.data);
  });

  test('the same key on a different path answers 409 conflict', async () => {
    const header = idempotencyHeader();
    const created = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'Path Store' },
    });
    const key = await app.platform.POST('/platform/v1/projects/{id}/keys', {
      params: { header, path: { id: created.data!.data.project.id } },
      body: { type: 'secret', mode: 'test' },
    });
    expect(key.response.status).toBe(409);
  });

  test('keys expire after 24 hours: an expired key is used afresh', async () => {
    const header = idempotencyHeader();
    await app.deps.db.idempotencyKey.create({
      data: {
        scope: 'platform',
        key: header['Idempotency-Key'],
        method: 'POST',
        path: '/platform/v1/projects',
        bodyHash: 'old',
        state: 'done',
        responseStatus: 201,
        responseBody: {},
        createdAt: new Date(Date.now() - 25 * HOUR),
      },
    });
    const response = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'Fresh Store' },
    });
    expect(response.response.status).toBe(201);
    expect(await projectsNamed('Fresh Store')).toBe(1);
  });

  test('4xx answers are stored and replayed', async () => {
    const header = idempotencyHeader();
    const first = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'x', plan: 'gold' as never },
    });
    const second = await app.platform.POST('/platform/v1/projects', {
      params: { header },
      body: { name: 'x', plan: 'gold' as never },
    });
    expect(first.response.status).toBe(400);
    expect(second.response.status).toBe(400);
    expect(second.error).toEqual(first.error);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
  });

  test('a malformed key answers 400 invalid_request', async () => {
    const response = await app.platform.POST('/platform/v1/projects', {
      params: { header: { 'Idempotency-Key': 'has spaces' } },
      body: { name: 'x' },
    });
    expect(response.response.status).toBe(400);
    expect(response.error!.error).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
  });

  test('twenty concurrent requests with one key create exactly one project', async () => {
    const header = idempotencyHeader();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        app.platform.POST('/platform/v1/projects', { params: { header }, body: { name: 'Stampede Store' } }),
      ),
    );
    expect(await projectsNamed('Stampede Store')).toBe(1);
    const created = results.filter((r) => r.response.status === 201);
    const conflicts = results.filter((r) => r.response.status === 409);
    expect(created.length + conflicts.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const replay of created) expect(replay.data).toEqual(created[0].data);
  });
});

describe('keyed creates under concurrency', () => {
  // A keyed create holds one connection (its transaction) for the whole request: anything in it that read
  // through the pool instead would wait for a connection the other requests hold (the test app's pool has 5).
  test('sixty concurrent keyed creates of six kinds, many more than the pool holds, all answer 201', async () => {
    const { keys } = await createProject(app);
    const client = app.client(keys.secret_test.token);
    const { data: product } = await client.POST('/v1/products', {
      body: { title: 'Stocked', variants: [{ title: 'One', price: 500 }] },
    });
    const { data: draft } = await client.POST('/v1/draft-orders', { body: { currency: 'USD' } });
    const kinds = [
      (n: number) =>
        client.POST('/v1/customers', {
          params: { header: { 'Idempotency-Key': `c-${n}` } },
          body: { email: `c${n}@example.com`, first_name: 'A', last_name: 'B' },
        }),
      (n: number) =>
        client.POST('/v1/products', {
          params: { header: { 'Idempotency-Key': `p-${n}` } },
          body: { title: `P ${n}`, variants: [{ title: 'V', price: 100 }] },
        }),
      (n: number) =>
        client.POST('/v1/draft-orders', {
          params: { header: { 'Idempotency-Key': `d-${n}` } },
          body: { currency: 'USD' },
        }),
      (n: number) =>
        client.POST('/v1/draft-orders/{id}/items', {
          params: { path: { id: draft!.data.id }, header: { 'Idempotency-Key': `i-${n}` } },
          body: { items: [{ variant_id: product!.data.variants[0].id, quantity: 1 }] },
        }),
      (n: number) =>
        client.POST('/v1/companies', {
          params: { header: { 'Idempotency-Key': `co-${n}` } },
          body: { name: `Co ${n}` },
        }),
      (n: number) =>
        client.POST('/v1/collections', {
          params: { header: { 'Idempotency-Key': `col-${n}` } },
          body: { title: `Col ${n}` },
        }),
    ];
    const results = await Promise.all(Array.from({ length: 60 }, (_, n) => kinds[n % kinds.length](n)));
    expect(results.map((r) => r.response.status)).toEqual(results.map(() => 201));
  }, 60_000);
});

// Project-scoped creates arrive with later areas; the scope and 5xx rules are checked on the real
// middleware chain (auth, body, idempotency) in front of a handler that writes a row.
describe('idempotency middleware on project-scoped creates', () => {
  let server: Server;
  let baseUrl: string;
  let failNext = false;
  // When set, the handler writes through the request's database (ctx.db) and then fails with this status.
  let writeThenFail: 400 | 500 | undefined;
  // When set, the handler reports that it has been reached (the request holds its key) and waits for release.
  let gate: { reached: () => void; released: Promise<void> } | undefined;
  beforeAll(async () => {
    const koa = new Koa<RequestState>();
    koa.use(errorHandler(app.deps.log));
    const operation = { auth: 'secret', idempotent: true } as OperationMeta;
    koa.use(authenticate(operation, app.deps));
    koa.use(jsonBody());
    koa.use(idempotency(app.deps));
    koa.use(async (ctx) => {
      if (failNext) {
        failNext = false;
        throw new Error('transient failure');
      }
      if (writeThenFail) {
        const status = writeThenFail;
        writeThenFail = undefined;
        const service = ctx.state.service!;
        await service.db.storeEvent.create({
          data: {
            id: newId('sevt_'),
            projectId: service.project.id,
            type: 'thing.created',
            resourceType: 'thing',
            resourceId: 'half-written',
            actorType: 'api_key',
            actorId: 'key_x',
            summary: 'created',
            metadata: {},
          },
        });
        if (status === 400) throw new AppError('invalid_request', 'Refused after a write.');
        throw new Error('failure after a write');
      }
      if (gate) {
        gate.reached();
        await gate.released;
      }
      const service = ctx.state.service!;
      const event = await app.deps.db.storeEvent.create({
        data: {
          id: newId('sevt_'),
          projectId: service.project.id,
          type: 'thing.created',
          resourceType: 'thing',
          resourceId: 'thing_1',
          actorType: 'api_key',
          actorId: 'key_x',
          summary: 'created',
          metadata: {},
        },
      });
      ctx.status = 201;
      ctx.body = { id: event.id };
    });
    server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const create = (token: string, key: string) =>
    fetch(`${baseUrl}/things`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
      body: '{"name":"thing"}',
    });

  test('keys are scoped to the API key: the same key in two projects, or with another key of one project, creates anew', async () => {
    const a = await createProject(app);
    const b = await createProject(app);
    const ra = await json(await create(a.keys.secret_test.token, 'shared-key'));
    const rb = await json(await create(b.keys.secret_test.token, 'shared-key'));
    expect(ra.id).not.toEqual(rb.id);
    const replay = await json(await create(a.keys.secret_test.token, 'shared-key'));
    expect(replay.id).toEqual(ra.id);
    const otherKey = await json(await create(a.keys.secret_live.token, 'shared-key'));
    expect(otherKey.id).not.toEqual(ra.id);
  });

  test('a key whose first request is still running answers 409 conflict', async () => {
    const { keys } = await createProject(app);
    let release!: () => void;
    let reached!: () => void;
    const inHandler = new Promise<void>((resolve) => (reached = resolve));
    gate = { reached, released: new Promise((resolve) => (release = resolve)) };
    const first = create(keys.secret_test.token, 'in-flight');
    await inHandler; // the first request has claimed the key and is running
    const second = await create(keys.secret_test.token, 'in-flight');
    expect(second.status).toBe(409);
    expect((await json(second)).error.message).toContain('still being processed');
    release();
    gate = undefined;
    expect((await first).status).toBe(201);
    expect((await create(keys.secret_test.token, 'in-flight')).status).toBe(201);
  });

  test('a request finding its key busy waits up to a second: when the first finishes meanwhile, it gets its answer', async () => {
    const { keys } = await createProject(app);
    let release!: () => void;
    let reached!: () => void;
    const inHandler = new Promise<void>((resolve) => (reached = resolve));
    gate = { reached, released: new Promise((resolve) => (release = resolve)) };
    const first = create(keys.secret_test.token, 'briefly-busy');
    await inHandler;
    const second = create(keys.secret_test.token, 'briefly-busy');
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    gate = undefined;
    const [firstAnswer, secondAnswer] = await Promise.all([first, second]);
    expect(firstAnswer.status).toBe(201);
    expect(secondAnswer.status).toBe(201);
    expect(secondAnswer.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(secondAnswer)).toEqual(await json(firstAnswer));
  });

  test('a key left running by a request whose process died is taken over at once, not after a lease', async () => {
    const { project, keys } = await createProject(app);
    // What a killed process leaves: the key claimed, its transaction (and row lock) gone with the connection.
    await app.deps.db.idempotencyKey.create({
      data: {
        scope: project.id,
        key: 'orphaned',
        method: 'POST',
        path: '/things',
        state: 'running',
        bodyHash: createHash('sha256').update('{"name":"thing"}').digest('hex'),
      },
    });
    const retried = await create(keys.secret_test.token, 'orphaned');
    expect(retried.status).toBe(201);
    const replay = await create(keys.secret_test.token, 'orphaned');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(replay)).toEqual(await json(retried));
  });

  test('an answer of 4xx or 5xx leaves nothing written; the 4xx is stored, the 5xx is not', async () => {
    const { project, keys } = await createProject(app);
    const halfWritten = () =>
      app.deps.db.storeEvent.count({ where: { projectId: project.id, resourceId: 'half-written' } });
    writeThenFail = 400;
    const refused = await create(keys.secret_test.token, 'refused-after-write');
    expect(refused.status).toBe(400);
    expect(await halfWritten()).toBe(0);
    const replay = await create(keys.secret_test.token, 'refused-after-write');
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    writeThenFail = 500;
    const failed = await create(keys.secret_test.token, 'failed-after-write');
    expect(failed.status).toBe(500);
    expect(await halfWritten()).toBe(0);
    expect((await create(keys.secret_test.token, 'failed-after-write')).status).toBe(201);
  });

  test('5xx answers are not stored: a retry after a failure runs again', async () => {
    const { keys } = await createProject(app);
    failNext = true;
    const failed = await create(keys.secret_test.token, 'retry-after-500');
    expect(failed.status).toBe(500);
    const retried = await create(keys.secret_test.token, 'retry-after-500');
    expect(retried.status).toBe(201);
  });
});

describe('a request whose transaction PostgreSQL ends in a deadlock', () => {
  test('answers 503 with Retry-After: 1, writes nothing, keeps nothing under its key, and succeeds when retried', async () => {
    const { project, keys } = await createProject(app);
    const createProduct = (key: string, title: string) =>
      fetch(`${app.baseUrl}/v1/products`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${keys.secret_test.token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
        },
        body: JSON.stringify({ title, variants: [{ title: 'Default', sku: key, price: 4900 }] }),
      });
    const countTitled = (title: string) => app.deps.db.product.count({ where: { projectId: project.id, title } });

    /**
     * Another session blocks every insert into products, sends the keyed create (which takes its key's row, then
     * waits to insert the product), then asks for that key's row: a deadlock. PostgreSQL checks a wait for one once,
     * a deadlock_timeout (1 s, the request's) after it begins; the other session's is 5 s, so the request is the one
     * ended, unless a loaded host let more than a second pass before the other session asked. Then the other session
     * is ended instead (undefined: the request ran, 201) and the caller tries again.
     */
    async function deadlocked(key: string, title: string): Promise<Response | undefined> {
      const other = new pg.Client({ connectionString: sessionUrlOf(app) });
      await other.connect();
      try {
        await other.query(`SET deadlock_timeout = '5s'`);
        await other.query('BEGIN');
        await other.query('LOCK TABLE products IN SHARE ROW EXCLUSIVE MODE');
        const answer = createProduct(key, title);
        const waiting = await eventually(
          async () =>
            (
              await other.query(
                `SELECT 1 FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted AND pid <> pg_backend_pid()
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
              )
            ).rowCount === 1,
          { timeoutMs: 10_000 },
        );
        expect(waiting).toBe(true);
        let otherEnded = false;
        try {
          await other.query('SELECT 1 FROM idempotency_keys WHERE key = $1 FOR UPDATE', [key]);
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01') throw error;
          otherEnded = true;
        }
        await other.query('ROLLBACK');
        if (!otherEnded) return await answer;
        expect((await answer).status).toBe(201);
        return undefined;
      } finally {
        await other.end();
      }
    }

    let lost: Response | undefined;
    let key = '';
    let title = '';
    for (let attempt = 1; !lost && attempt <= 3; attempt += 1) {
      key = `deadlock-${project.id}-${attempt}`;
      title = `Deadlocked Lamp ${attempt}`;
      lost = await deadlocked(key, title);
    }
    if (!lost) throw new Error('three times in a row the request was not the session PostgreSQL ended');
    expect(lost.status).toBe(503);
    expect(lost.headers.get('retry-after')).toBe('1');
    expect((await json(lost)).error).toEqual({
      code: 'service_unavailable',
      message:
        'Another request was changing the same records at the same moment; nothing was written. Retry in 1 second.',
    });
    expect(await countTitled(title)).toBe(0);
    const retried = await createProduct(key, title);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await countTitled(title)).toBe(1);
  });
});

describe('purge-idempotency-keys job', () => {
  test('deletes keys older than 24 hours and keeps newer ones', async () => {
    const row = (key: string, ageHours: number) => ({
      scope: 'purge-test',
      key,
      method: 'POST',
      path: '/x',
      bodyHash: 'h',
      state: 'done',
      createdAt: new Date(Date.now() - ageHours * HOUR),
    });
    await app.deps.db.idempotencyKey.createMany({ data: [row('old', 25), row('new', 23)] });
    expect(await purgeIdempotencyKeys(app.deps.db)).toBeGreaterThanOrEqual(1);
    const left = await app.deps.db.idempotencyKey.findMany({ where: { scope: 'purge-test' } });
    expect(left.map((k) => k.key)).toEqual(['new']);
  });
});
