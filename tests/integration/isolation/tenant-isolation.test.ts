/**
 * Tenant isolation sweep: a project's keys and tokens reach nothing of another project. Two projects, A and B,
 * each hold one of every resource. Driven by the generated operation index and openapi.yaml
 * (./id-operations.ts), never by a hand list:
 * - every operation that takes an id (path, body reference or query filter) is called with project B's key
 *   on project A's ids: a path id answers 404 not_found, a body reference 400 naming the field, a query
 *   filter finds nothing of A's; no answer carries an id of A's the request did not send; A's rows in
 *   every table are the same afterwards (a snapshot of the whole public schema without B's rows); and while
 *   each request runs, A's rows are held as A's own writer holds them, so no request of B's waits on A's locks;
 * - A's publishable key on every secret-key operation answers 403 forbidden and changes nothing;
 * - A's customer credentials (access, refresh and reset tokens, password) through B's publishable key are
 *   answered exactly as unknown ones are, and change nothing of A's;
 * - the operator API (platform token) refuses B's secret key.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { operationIndex, type OperationMeta } from '../../../src/generated/operations.js';
import { deriveIdOperations, exampleBodyOf, metafieldReferenceTypes, type IdOperation } from './id-operations.js';
import { populate, SHARED_SLUG, type Tenant } from './populate.js';
import { diff, snapshot, type Snapshot } from './snapshot.js';
import { useApp } from '../../setup/store.js';

type Json = any;
type Owner = 'A' | 'B';

const { idOperations, unmapped, other } = deriveIdOperations(SHARED_SLUG);

interface SweepCase {
  title: string;
  io: IdOperation;
  key: 'secret' | 'publishable';
  /** Whose id each id path parameter gets; a definition is named by its id or by a slug only A has. */
  path: Record<string, Owner>;
  definitionBy?: 'id' | 'slug';
  /** The body reference (index into io.bodyRefs) that gets A's id; the others get B's. */
  bodyRef?: number;
  /** The query filter that gets A's id. */
  queryRef?: string;
  expect: 'not_found' | 'bad_reference' | 'finds_nothing';
}

const route = (op: OperationMeta) => `${op.method} ${op.path}`;

/** The cases for one operation of a tenant (secret or publishable key). */
function casesFor(io: IdOperation): SweepCase[] {
  const cases: SweepCase[] = [];
  const idParams = io.pathParams.filter((p) => p.slot.kind !== 'const').map((p) => p.name);
  const keys: Array<'secret' | 'publishable'> = io.op.auth === 'publishable' ? ['secret', 'publishable'] : ['secret'];
  const allB = Object.fromEntries(idParams.map((name): [string, Owner] => [name, 'B']));
  for (const key of keys) {
    if (idParams.length > 0) {
      const assignments: Array<Record<string, Owner>> = [
        Object.fromEntries(idParams.map((name): [string, Owner] => [name, 'A'])),
      ];
      // Nested resources: A's id in one position with B's ids around it (B's company, A's contact).
      if (idParams.length > 1) for (const name of idParams) assignments.push({ ...allB, [name]: 'A' });
      for (const path of assignments) {
        const named = Object.entries(path)
          .map(([name, owner]) => `${name}=${owner}`)
          .join(', ');
        const forms: Array<'id' | 'slug' | undefined> = io.pathParams.some((p) => p.slot.kind === 'definition')
          ? ['id', 'slug']
          : [undefined];
        for (const definitionBy of forms) {
          cases.push({
            title: `${io.op.operationId} ${route(io.op)}: B's ${key} key, path ${named}${definitionBy ? ` (definition by ${definitionBy})` : ''} -> 404`,
            io,
            key,
            path,
            definitionBy,
            expect: 'not_found',
          });
        }
      }
    }
    io.bodyRefs.forEach((ref, i) => {
      cases.push({
        title: `${io.op.operationId} ${route(io.op)}: B's ${key} key, B's path, A's ${ref.at.join('.')} in the body -> refused as a nonexistent id (400 or 404)`,
        io,
        key,
        path: allB,
        bodyRef: i,
        expect: 'bad_reference',
      });
    });
    for (const ref of io.queryRefs) {
      cases.push({
        title: `${io.op.operationId} ${route(io.op)}: B's ${key} key, ?${ref.name}=A's -> nothing of A's`,
        io,
        key,
        path: allB,
        queryRef: ref.name,
        expect: 'finds_nothing',
      });
    }
  }
  return cases;
}

const tenantOperations = idOperations.filter((io) => io.op.auth === 'secret' || io.op.auth === 'publishable');
const operatorOperations = idOperations.filter((io) => io.op.auth === 'platform');
const sweep = tenantOperations.flatMap(casesFor);
const secretOperations = operationIndex.filter((op) => op.auth === 'secret');
const credentialOperations = operationIndex.filter((op) => op.auth === 'customer' || op.tag === 'customer-auth');

const app = useApp();
let A: Tenant;
let B: Tenant;
let baseline: Snapshot;

beforeAll(async () => {
  A = await populate(app, 'A');
  B = await populate(app, 'B');
  baseline = await snapshot(app, [B.project.id], Object.values(A.ids));
}, 120_000);

const tenant = (owner: Owner) => (owner === 'A' ? A : B);

function idFor(owner: Owner, prefix: string): string {
  const id = tenant(owner).ids[prefix];
  if (!id) throw new Error(`populate() made no resource with prefix ${prefix}_ for the sweep; add one`);
  return id;
}

/** The request of a case: path, query and body with each id of the right tenant. */
function requestOf(c: SweepCase): { path: string; query: string; body?: Json } {
  let path = c.io.op.path;
  for (const param of c.io.pathParams) {
    const owner = c.path[param.name] ?? 'B';
    const value =
      param.slot.kind === 'const'
        ? param.slot.value
        : param.slot.kind === 'definition'
          ? c.definitionBy === 'slug'
            ? tenant(owner).ownSlug
            : idFor(owner, 'mfd')
          : idFor(owner, param.slot.prefix);
    path = path.replace(`{${param.name}}`, encodeURIComponent(value));
  }
  const body = c.io.body === undefined ? undefined : structuredClone(c.io.body);
  c.io.bodyRefs.forEach((ref, i) => {
    const holder = ref.at.slice(0, -1).reduce((o: Json, k) => o[k], body);
    holder[ref.at[ref.at.length - 1]] = idFor(i === c.bodyRef ? 'A' : 'B', ref.prefix);
  });
  const query = c.io.queryRefs
    .filter((q) => q.name === c.queryRef)
    .map((q) => `${q.name}=${encodeURIComponent(idFor('A', q.prefix))}`)
    .join('&');
  return { path, query: query ? `?${query}` : '', body };
}

interface Answer {
  status: number;
  text: string;
  json: Json;
}

async function send(method: string, path: string, headers: Record<string, string>, body?: Json): Promise<Answer> {
  const response = await fetch(app.baseUrl + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** A's ids in an answer that the request did not send itself. */
function leakedIds(answer: Answer, sent: string): string[] {
  return Object.values(A.ids).filter((id) => answer.text.includes(id) && !sent.includes(id));
}

/**
 * A's rows that changed since the last call, by table; moves the baseline on, so each change is blamed once. No
 * table is left out: refused requests count against no quota, so even A's rate-limit windows stay as they were.
 */
async function changesOfA(): Promise<ReturnType<typeof diff>> {
  const now = await snapshot(app, [B.project.id], Object.values(A.ids));
  const changes = diff(baseline, now);
  baseline = now;
  return changes;
}

describe('the sweep covers every id-taking operation of the index', () => {
  test('every path parameter, body reference and query filter of every operation resolves to a resource kind', () => {
    expect(unmapped).toEqual([]);
  });

  test("the snapshot holds A's rows of every kind, its child rows and its queued jobs", () => {
    for (const table of [
      'customers',
      'customer_addresses',
      'draft_line_items',
      'refresh_tokens',
      'metafield_values',
      'webhook_deliveries',
      'refunds',
      'inventory_reservations',
      'pgboss.job',
    ]) {
      expect({ table, rows: (baseline[table] ?? []).length > 0 }).toEqual({ table, rows: true });
    }
  });

  test('the operations, by category', () => {
    const byCategory = {
      'tenant (path id, body reference or query filter)': tenantOperations.map((io) => io.op.operationId),
      'operator API (platform token)': operatorOperations.map((io) => io.op.operationId),
      'publishable key refused (secret-key operations)': secretOperations.map((op) => op.operationId),
      'customer credentials (storefront)': credentialOperations.map((op) => op.operationId),
      'no id (creates, lists without id filters, service)': other.map((op) => op.operationId),
    };
    console.log(
      `Tenant isolation sweep: ${sweep.length} cases over ${tenantOperations.length} id-taking tenant operations\n` +
        Object.entries(byCategory)
          .map(([name, ops]) => `${name} (${ops.length}): ${ops.join(', ')}`)
          .join('\n'),
    );
    // Every operation of the index is in one of the id categories or knowingly has none.
    const covered = new Set([...idOperations.map((io) => io.op.operationId), ...other.map((op) => op.operationId)]);
    expect(operationIndex.filter((op) => !covered.has(op.operationId))).toEqual([]);
    expect(tenantOperations.length).toBeGreaterThan(90);
  });
});

/**
 * Holds every row of A's ids (in whichever table) as A's own writers lock them (FOR UPDATE) until the returned
 * release is called: a request of B's that locks one of them in any mode (a lock taken by the id before the
 * project is checked) waits for the release.
 */
async function holdRowsOfA(): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const holder = app.deps.db.$transaction(
    async (tx) => {
      const tables = await tx.$queryRawUnsafe<Array<{ table_name: string }>>(
        `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'id'
           AND data_type = 'text' AND table_name IN (SELECT table_name FROM information_schema.tables
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE')`,
      );
      for (const { table_name } of tables)
        await tx.$queryRawUnsafe(`SELECT 1 FROM "${table_name}" WHERE id = ANY($1) FOR UPDATE`, Object.values(A.ids));
      held();
      await released;
    },
    { timeout: 3_600_000, maxWait: 10_000 },
  );
  await Promise.race([holding, holder]);
  return async () => {
    release();
    await holder;
  };
}

/** B's answer; fails naming the request when none came within 15 s (it waits on a row of A's that is held). */
async function unqueued(request: string, answer: Promise<Answer>): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${request} waited 15 s on a row of A's that A's writer holds`)), 15_000);
  });
  try {
    return await Promise.race([answer, waited]);
  } finally {
    clearTimeout(timer);
  }
}

describe("B's key on A's ids", () => {
  let releaseRowsOfA: () => Promise<void>;
  beforeAll(async () => {
    releaseRowsOfA = await holdRowsOfA();
  });
  afterAll(() => releaseRowsOfA());

  test.each(sweep.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
    const { path, query, body } = requestOf(c);
    const key = c.key === 'secret' ? B.keys.secret_test.token : B.keys.publishable_test.token;
    const answer = await unqueued(
      `${c.io.op.method} ${path}${query}`,
      send(c.io.op.method, path + query, { Authorization: `Bearer ${key}` }, body),
    );
    const changes = await changesOfA();
    const sent = path + query + JSON.stringify(body ?? null);
    const request = `${c.io.op.method} ${path}${query} ${body === undefined ? '' : JSON.stringify(body)}`;
    // Nothing of A's changed (checked first: it is the worst outcome), then the answer itself.
    expect({ request, changesOfA: changes }).toEqual({ request, changesOfA: {} });
    if (c.expect === 'not_found') {
      expect({ request, status: answer.status, code: answer.json?.error?.code }).toEqual({
        request,
        status: 404,
        code: 'not_found',
      });
    } else if (c.expect === 'bad_reference') {
      // Refused as the contract says (400 naming the field, or the operation's documented 404), and exactly as
      // an id that exists nowhere is: another project's resource is indistinguishable from none.
      const ref = c.io.bodyRefs[c.bodyRef!];
      const nowhere = structuredClone(body);
      ref.at.slice(0, -1).reduce((o: Json, k) => o[k], nowhere)[ref.at[ref.at.length - 1]] =
        `${ref.prefix}_${'0'.repeat(26)}`;
      const control = await send(c.io.op.method, path + query, { Authorization: `Bearer ${key}` }, nowhere);
      const shape = (a: Answer) => ({
        status: a.status,
        code: a.json?.error?.code,
        field: a.json?.error?.field,
        details: a.json?.error?.details?.map((d: Json) => d.field),
      });
      expect({ request, ...shape(answer) }).toEqual({ request, ...shape(control) });
      expect({
        request,
        refused: answer.status === 404 ? answer.json?.error?.code === 'not_found' : answer.status === 400,
      }).toEqual({ request, refused: true });
      if (answer.status === 400) {
        const named: string[] = [
          answer.json?.error?.field,
          ...(answer.json?.error?.details ?? []).map((d: Json) => d.field),
        ].filter(Boolean);
        expect({
          request,
          named,
          field: named.some((f) => f === ref.field || f.startsWith(`${ref.field}[`) || f.startsWith(`${ref.field}.`)),
        }).toEqual({ request, named, field: true });
      }
    } else {
      // A filter on another project's id finds nothing (or is refused).
      if (answer.status === 200) expect({ request, data: answer.json.data }).toEqual({ request, data: [] });
      else expect({ request, refused: [400, 404].includes(answer.status) }).toEqual({ request, refused: true });
    }
    expect({ request, leaked: leakedIds(answer, sent) }).toEqual({ request, leaked: [] });
  });
});

describe("A's ids as metafield reference values through B's key", () => {
  /** The resource each reference type names; a type without an entry fails its test, so a new one gets one. */
  const referenced: Record<string, string> = {
    product: 'prod',
    variant: 'var',
    collection: 'col',
    customer: 'cus',
    order: 'ord',
    image: 'img',
    file: 'file',
    video: 'video',
  };
  test.each(
    metafieldReferenceTypes.map(
      (type) => [`${type} on B's product with A's id -> refused as an id that exists nowhere`, type] as const,
    ),
  )('%s', async (_title, type) => {
    const kind = type.replace(/^list\./, '').replace(/_reference$/, '');
    const key = referenced[kind];
    expect({ type, mapped: Boolean(key && A.ids[key]) }).toEqual({ type, mapped: true });
    const slug = `ref_${type.replace(/\W/g, '_')}`;
    const auth = { Authorization: `Bearer ${B.keys.secret_test.token}` };
    const definition = await send('POST', '/v1/store/metafields', auth, {
      label: `Ref ${type}`,
      slug,
      owner_type: 'product',
      value_type: type,
    });
    expect(definition.status).toBe(201);
    const value = (id: string) => ({ value: type.startsWith('list.') ? [id] : id });
    const path = `/v1/products/${B.ids.prod}/metafields/${slug}`;
    const answer = await send('PUT', path, auth, value(A.ids[key]));
    const changes = await changesOfA();
    const prefix = A.ids[key].split('_')[0];
    const control = await send('PUT', path, auth, value(`${prefix}_${'0'.repeat(26)}`));
    expect({ changesOfA: changes }).toEqual({ changesOfA: {} });
    const shape = (a: Answer) => ({ status: a.status, code: a.json?.error?.code, field: a.json?.error?.field });
    expect({ type, ...shape(answer) }).toEqual({ type, ...shape(control) });
    expect({ type, status: answer.status }).toEqual({ type, status: 400 });
    expect(leakedIds(answer, JSON.stringify(value(A.ids[key])))).toEqual([]);
  });
});

describe("A's publishable key on every secret-key operation", () => {
  const ioByOperation = new Map(idOperations.map((io) => [io.op.operationId, io]));
  test.each(secretOperations.map((op) => [`${op.operationId} ${route(op)} -> 403 forbidden`, op] as const))(
    '%s',
    async (_title, op) => {
      const io = ioByOperation.get(op.operationId);
      // A's own ids everywhere: only the key class stands between the request and A's data.
      const c: SweepCase | undefined = io && {
        title: '',
        io,
        key: 'publishable',
        path: Object.fromEntries(io.pathParams.map((p) => [p.name, 'A'])),
        definitionBy: 'id',
        expect: 'not_found',
      };
      let path = op.path;
      let body: Json;
      if (c) {
        ({ path, body } = requestOf(c));
        c.io.bodyRefs.forEach((ref) => {
          const holder = ref.at.slice(0, -1).reduce((o: Json, k) => o[k], body);
          holder[ref.at[ref.at.length - 1]] = idFor('A', ref.prefix);
        });
      } else if (op.hasBody) {
        body = exampleBodyOf(op);
      }
      const answer = await send(op.method, path, { Authorization: `Bearer ${A.keys.publishable_test.token}` }, body);
      expect({ changesOfA: await changesOfA() }).toEqual({ changesOfA: {} });
      expect({ request: `${op.method} ${path}`, status: answer.status, code: answer.json?.error?.code }).toEqual({
        request: `${op.method} ${path}`,
        status: 403,
        code: 'forbidden',
      });
    },
  );
});

describe('the operator API refuses project keys', () => {
  test.each(
    operatorOperations.map(
      (io) => [`${io.op.operationId} ${route(io.op)}: B's secret key on A's ids -> 401`, io] as const,
    ),
  )('%s', async (_title, io) => {
    let path = io.op.path;
    for (const param of io.pathParams)
      if (param.slot.kind === 'id') path = path.replace(`{${param.name}}`, idFor('A', param.slot.prefix));
    const answer = await send(io.op.method, path, { Authorization: `Bearer ${B.keys.secret_test.token}` }, io.body);
    expect({ changesOfA: await changesOfA() }).toEqual({ changesOfA: {} });
    expect({ path, status: answer.status, code: answer.json?.error?.code }).toEqual({
      path,
      status: 401,
      code: 'unauthorized',
    });
  });
});

describe("A's customer credentials through B's publishable key", () => {
  /** A's credential for each body property of the storefront operations; anything else keeps the example's value. */
  const credentialsOf = (
    t: Pick<Tenant['customer'], 'email' | 'password' | 'refreshToken' | 'resetToken'>,
  ): Record<string, string> => ({
    email: t.email,
    password: t.password,
    current_password: t.password,
    refresh_token: t.refreshToken,
    token: t.resetToken,
  });
  const unknown = {
    email: 'nobody.here@example.com',
    password: 'Unknown-Pass-2026',
    refreshToken: 'x'.repeat(43),
    resetToken: 'y'.repeat(43),
    accessToken: 'e30.e30.AAAA',
  };

  test.each(
    credentialOperations.map(
      (op) =>
        [`${op.operationId} ${route(op)}: answered as for an unknown credential, nothing of A's changes`, op] as const,
    ),
  )('%s', async (_title, op) => {
    const request = (
      who: Pick<Tenant['customer'], 'email' | 'password' | 'refreshToken' | 'resetToken' | 'accessToken'>,
    ) => {
      const fills = credentialsOf(who);
      const example = op.hasBody ? exampleBodyOf(op) : undefined;
      const body =
        example && Object.fromEntries(Object.entries(example).map(([k, v]) => [k, k in fills ? fills[k] : v]));
      const headers: Record<string, string> = { 'X-API-Key': B.keys.publishable_test.token };
      if (op.auth === 'customer') headers.Authorization = `Bearer ${who.accessToken}`;
      return send(op.method, op.path, headers, body);
    };
    const withA = await request(A.customer);
    expect({ changesOfA: await changesOfA() }).toEqual({ changesOfA: {} });
    expect(leakedIds(withA, '')).toEqual([]);
    const withUnknown = await request(unknown);
    const shape = (a: Answer) => ({ status: a.status, code: a.json?.error?.code, message: a.json?.error?.message });
    expect(shape(withA)).toEqual(shape(withUnknown));
    expect(withA.status === 401 || withA.status < 300 || withA.status === 400).toBe(true);
    if (op.auth === 'customer') expect(withA.status).toBe(401);
  });

  test("A's session still works with A's publishable key", async () => {
    const me = await send('GET', '/v1/me', {
      'X-API-Key': A.keys.publishable_test.token,
      Authorization: `Bearer ${A.customer.accessToken}`,
    });
    expect(me.status).toBe(200);
    expect(me.json.data.email).toBe(A.customer.email);
  });
});
