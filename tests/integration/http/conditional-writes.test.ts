/**
 * Conditional writes (openapi.yaml, "Conditional writes"), swept over the operation index: every path with a PATCH
 * is a mutable resource, and for each one, on a project holding one of every resource, its GET (where it has one)
 * answers an ETag, a PATCH with that tag succeeds and answers a new one, and a PATCH or DELETE with the stale tag
 * answers 412 precondition_failed and changes no row. Then the header's forms, and two writes racing with one tag.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { operationIndex, type OperationMeta } from '../../../src/generated/operations.js';
import { deriveIdOperations, exampleBodyOf, type IdOperation } from '../isolation/id-operations.js';
import { populate, SHARED_SLUG, type Tenant } from '../isolation/populate.js';
import { diff, snapshot, type Snapshot } from '../isolation/snapshot.js';
import { useApp } from '../../setup/store.js';
import { eventually, lockWaits } from '../../setup/wait.js';
import { TEST_PLATFORM_TOKEN } from '../../setup/test-app.js';

type Json = any;

const { idOperations } = deriveIdOperations(SHARED_SLUG);
const byId = new Map(idOperations.map((io) => [io.op.operationId, io]));
const sibling = (path: string, method: string) => operationIndex.find((op) => op.path === path && op.method === method);

/** Every mutable resource of the index: its PATCH, and its GET and DELETE where the path has them. */
const resources = operationIndex
  .filter((op) => op.method === 'PATCH')
  .map((patch) => ({ patch, get: sibling(patch.path, 'GET'), del: sibling(patch.path, 'DELETE') }));

const app = useApp();
let T: Tenant;
let OTHER: Tenant;

beforeAll(async () => {
  T = await populate(app, 'A');
  // The platform project resource is the one the sweep's project is; a second tenant is what the operator edits.
  OTHER = await populate(app, 'B');
}, 120_000);

interface Answer {
  status: number;
  etag: string | null;
  json: Json;
}

function headersFor(op: OperationMeta, extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> =
    op.auth === 'platform'
      ? { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}` }
      : op.auth === 'customer'
        ? { 'X-API-Key': T.keys.publishable_test.token, Authorization: `Bearer ${T.customer.accessToken}` }
        : { Authorization: `Bearer ${T.keys.secret_test.token}` };
  return { ...base, ...extra };
}

/** The path of an operation with the tenant's own ids (a definition by its slug). */
function pathOf(op: OperationMeta): string {
  const io = byId.get(op.operationId);
  let path = op.path;
  for (const param of io?.pathParams ?? []) {
    const value =
      param.slot.kind === 'const'
        ? param.slot.value
        : param.slot.kind === 'definition'
          ? T.ownSlug
          : param.slot.prefix === 'proj'
            ? OTHER.project.id
            : param.slot.prefix === 'addr' && op.auth === 'customer'
              ? T.customer.addressId // the signed-in customer's own (/v1/me/addresses/{id})
              : T.ids[param.slot.prefix];
    path = path.replace(`{${param.name}}`, encodeURIComponent(value));
  }
  return path;
}

/** The contract's example PATCH body with every id in it the tenant's own. */
function bodyOf(io: IdOperation | undefined, op: OperationMeta, example: (op: OperationMeta) => Json): Json {
  const body = io?.body === undefined ? example(op) : structuredClone(io.body);
  for (const ref of io?.bodyRefs ?? []) {
    const holder = ref.at.slice(0, -1).reduce((o: Json, k) => o[k], body);
    holder[ref.at[ref.at.length - 1]] = ref.prefix === 'loc' ? T.otherLocation : T.ids[ref.prefix];
  }
  return body ?? {};
}

/** The body with its first scalar changed (a flag flipped, a number one more, a text extended): another version. */
function otherVersionOf(body: Json): Json {
  const other = structuredClone(body);
  const [name, value] = Object.entries<Json>(other).find(([, v]) =>
    ['boolean', 'number', 'string'].includes(typeof v),
  )!;
  other[name] = typeof value === 'boolean' ? !value : typeof value === 'number' ? value + 1 : `${value} 2`;
  return other;
}

async function send(op: OperationMeta, extra: Record<string, string> = {}, body?: Json): Promise<Answer> {
  const response = await fetch(app.baseUrl + pathOf(op), {
    method: op.method,
    headers: headersFor(op, body === undefined ? extra : { ...extra, 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('ETag'), json: text ? JSON.parse(text) : undefined };
}

const projectsOf = () => [T.project.id, OTHER.project.id];
/**
 * Every row of both projects (and every other table), to prove a refused write changed nothing. Not the rate
 * limiter's windows: every request counts there, refused ones too, and a new minute adds a row of its own.
 */
const rowsNow = async (): Promise<Snapshot> =>
  Object.fromEntries(Object.entries(await snapshot(app, [], [])).filter(([table]) => table !== 'rate_windows'));

describe('every mutable resource of the index', () => {
  test('the sweep finds the mutable resources, each with its If-Match and 412', () => {
    expect(resources.length).toBeGreaterThanOrEqual(20);
    expect(projectsOf()).toHaveLength(2);
  });

  test.each(resources.map((r) => [`${r.patch.operationId} ${r.patch.method} ${r.patch.path}`, r] as const))(
    '%s: its ETag (from its GET, or its PATCH without a GET) makes a PATCH succeed with a new one; PATCH and DELETE with the stale one answer 412 and change nothing',
    async (_title, { patch, get, del }) => {
      const body = () => bodyOf(byId.get(patch.operationId), patch, exampleBodyOf);
      // The current tag: from the GET where the resource has one; else from an unconditional PATCH's answer, and the
      // conditional PATCH then writes another version.
      const first = get ? await send(get) : await send(patch, {}, body());
      expect([first.status, first.etag]).toEqual([200, expect.stringMatching(/^"[\w-]{22}"$/)]);
      const stale = first.etag!;

      const changed = await send(patch, { 'If-Match': stale }, get ? body() : otherVersionOf(body()));
      expect([changed.status, changed.json?.error]).toEqual([200, undefined]);
      expect(changed.etag).toMatch(/^"[\w-]{22}"$/);
      expect(changed.etag).not.toBe(stale);
      if (get) expect((await send(get)).etag).toBe(changed.etag);

      const before = await rowsNow();
      const refused = await send(
        patch,
        { 'If-Match': stale },
        bodyOf(byId.get(patch.operationId), patch, exampleBodyOf),
      );
      expect([refused.status, refused.json?.error?.code]).toEqual([412, 'precondition_failed']);
      if (del) {
        const refusedDelete = await send(del, { 'If-Match': stale });
        expect([refusedDelete.status, refusedDelete.json?.error?.code]).toEqual([412, 'precondition_failed']);
      }
      expect(diff(before, await rowsNow())).toEqual({});

      // The new tag still works: the chain goes on.
      const again = await send(patch, { 'If-Match': changed.etag! }, body());
      expect([again.status, again.json?.error]).toEqual([200, undefined]);
    },
  );
});

describe('If-Match forms and entity tags on a customer', () => {
  const customerPath = () => `/v1/customers/${T.ids.cus}`;
  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: Json) => {
    const response = await fetch(app.baseUrl + path, {
      method,
      headers: {
        Authorization: `Bearer ${T.keys.secret_test.token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get('ETag'), json: text ? JSON.parse(text) : undefined };
  };
  const currentTag = async () => (await call('GET', customerPath())).etag!;

  test('a create answers the ETag its GET answers', async () => {
    const created = await call(
      'POST',
      '/v1/customers',
      {},
      { email: 'etag.created@example.com', first_name: 'Etta', last_name: 'Tag' },
    );
    expect(created.status).toBe(201);
    expect(created.etag).toMatch(/^"[\w-]{22}"$/);
    expect((await call('GET', `/v1/customers/${created.json.data.id}`)).etag).toBe(created.etag);
  });

  test('fields and expand shape the answer, not its ETag', async () => {
    const tag = await currentTag();
    expect((await call('GET', `${customerPath()}?fields=email`)).etag).toBe(tag);
    expect((await call('GET', `${customerPath()}?expand=addresses`)).etag).toBe(tag);
  });

  test('* matches any current version; a list matches when one of its tags does', async () => {
    expect((await call('PATCH', customerPath(), { 'If-Match': '*' }, { first_name: 'Star' })).status).toBe(200);
    const tag = await currentTag();
    const listed = await call('PATCH', customerPath(), { 'If-Match': `"nope", ${tag}` }, { first_name: 'Listed' });
    expect(listed.status).toBe(200);
  });

  test('a weak tag never matches, even the current one', async () => {
    const tag = await currentTag();
    const weak = await call('PATCH', customerPath(), { 'If-Match': `W/${tag}` }, { first_name: 'Weak' });
    expect([weak.status, weak.json.error.code, weak.json.error.field]).toEqual([
      412,
      'precondition_failed',
      'If-Match',
    ]);
    expect((await call('GET', customerPath())).json.data.first_name).not.toBe('Weak');
  });

  test('a malformed If-Match answers 400 naming the header', async () => {
    const bad = await call('PATCH', customerPath(), { 'If-Match': 'not-quoted' }, { first_name: 'Bad' });
    expect([bad.status, bad.json.error.code, bad.json.error.field]).toEqual([400, 'invalid_request', 'If-Match']);
  });

  test('an id naming no resource answers 404 as without the header', async () => {
    const missing = await call(
      'PATCH',
      '/v1/customers/cus_00000000000000000000000000',
      { 'If-Match': '"x"' },
      { first_name: 'Nobody' },
    );
    expect([missing.status, missing.json.error.code]).toEqual([404, 'not_found']);
  });

  test('without If-Match a write is unconditional, whatever changed since', async () => {
    await call('PATCH', customerPath(), {}, { first_name: 'First' });
    expect((await call('PATCH', customerPath(), {}, { first_name: 'Second' })).status).toBe(200);
  });

  test('a matching If-Match on DELETE deletes', async () => {
    const created = await call(
      'POST',
      '/v1/customers',
      {},
      { email: 'etag.deleted@example.com', first_name: 'Dee', last_name: 'Leted' },
    );
    const deleted = await call('DELETE', `/v1/customers/${created.json.data.id}`, { 'If-Match': created.etag! });
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/v1/customers/${created.json.data.id}`)).status).toBe(404);
  });

  test('of 10 PATCHes sent together with the same If-Match exactly one is made; the others answer 412', async () => {
    const tag = await currentTag();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('PATCH', customerPath(), { 'If-Match': tag }, { first_name: `Racer ${i}` }),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 412 && a.json.error.code === 'precondition_failed')).toHaveLength(9);
    const now = await call('GET', customerPath());
    expect([now.json.data.first_name, now.etag]).toEqual([won[0].json.data.first_name, won[0].etag]);
  });

  // Each value differs from the draft's current one (the sweep above leaves its example body behind): a PATCH that
  // changes nothing keeps the tag, so racing a change it may rightly succeed too (as if it ran first).
  const otherShippingCosts = async (path: string, count: number) => {
    const current = (await call('GET', path)).json.data.shipping_cost as number;
    return Array.from({ length: count }, (_, i) => current + 1 + i);
  };

  test('two PATCHes of a draft order, each changing it, sent together with the same If-Match: exactly one is made', async () => {
    const path = `/v1/draft-orders/${T.ids.dord}`;
    for (let round = 0; round < 10; round++) {
      const tag = (await call('GET', path)).etag!;
      const answers = await Promise.all(
        (await otherShippingCosts(path, 2)).map((cost) =>
          call('PATCH', path, { 'If-Match': tag }, { shipping_cost: cost }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
      const winner = answers.find((a) => a.status === 200)!;
      expect((await call('GET', path)).json.data.shipping_cost).toBe(winner.json.data.shipping_cost);
    }
  });

  test('two PATCHes of a draft order that both pass the check before either writes: the second to write answers 412', async () => {
    const path = `/v1/draft-orders/${T.ids.dord}`;
    const tag = (await call('GET', path)).etag!;
    const costs = await otherShippingCosts(path, 2);
    const db = app.deps.db;
    // Both PATCHes have read the draft and are waiting for its row lock.
    const bothWaiting = async () => (await lockWaits(db, '%FROM draft_orders%FOR UPDATE%')) === 2;
    // A third transaction holds the draft's row lock (changing nothing) until both PATCHes wait for it.
    let holding!: () => void;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM draft_orders WHERE id = ${T.ids.dord} FOR UPDATE`;
        holding();
        await released;
      },
      { timeout: 20_000 },
    );
    await held;
    const sent = Promise.all(costs.map((cost) => call('PATCH', path, { 'If-Match': tag }, { shipping_cost: cost })));
    const waited = await eventually(bothWaiting, { timeoutMs: 10_000 });
    release();
    await holder;
    const answers = await sent;
    expect(waited).toBe(true);
    expect(answers.map((a) => [a.status, a.json.error?.code]).sort()).toEqual([
      [200, undefined],
      [412, 'precondition_failed'],
    ]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await call('GET', path)).json.data.shipping_cost).toBe(winner.json.data.shipping_cost);
  });
});
