/**
 * The fuzzing target and oracle: the real app over a real PostgreSQL database, a populated project to
 * aim at, requests sent over HTTP, and every answer checked against openapi.yaml.
 */
import fc from 'fast-check';
import { operationIndex, type OperationMeta } from '../../src/generated/operations.js';
import { ContractChecker } from '../../src/http/middleware/contract-checker.js';
import { seedDemoCatalog } from '../../src/seed/demo-catalog.js';
import { startTestApp, TEST_METRICS_TOKEN, TEST_PLATFORM_TOKEN, type TestApp } from '../setup/test-app.js';
import { IdPool } from './id-pool.js';
import { fixtureHints, followAnswer, harvestFixtures, requestReset, seedFixtures } from './fixtures.js';
import { document, requestArbitrary, type Credentials, type FuzzRequest } from './operations.js';

/** How long one answer may take before it counts as a hang. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Waits before each new try of a request whose connection failed (about 10 s in all). */
const CONNECTION_RETRY_MS = [50, 100, 200, 400, 800, 1600, 3200, 3200];

/**
 * Whether fetch failed before any answer came (its TypeError "fetch failed"). By name, not instanceof: under
 * jest the error comes from Node's own realm, whose TypeError is not the test's.
 */
function isConnectionFailure(error: unknown): boolean {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as Partial<Error>;
  return name === 'TypeError' && message === 'fetch failed';
}

/**
 * fetch, tried again (a bounded number of times, waiting longer each time) while the connection fails
 * before any answer: on a loaded machine a kept-alive socket can be closed by the server just as a request
 * goes out ("fetch failed"). An answer of any status, or a timeout, ends it.
 */
async function fetchAnswered(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const connectionFailed = isConnectionFailure(error);
      if (!connectionFailed || attempt >= CONNECTION_RETRY_MS.length) throw error;
      await new Promise((resolve) => setTimeout(resolve, CONNECTION_RETRY_MS[attempt]));
    }
  }
}

export interface FuzzAnswer {
  status: number;
  body: unknown;
  ms: number;
}

/** Statistics of a run: answers by status, by operation and status, and how many requests were sent. */
export class FuzzStats {
  requests = 0;
  readonly byStatus = new Map<number, number>();
  readonly byOperation = new Map<string, Map<number, number>>();
  readonly byIntent = { valid: 0, invalid: 0, wrongCredential: 0 };

  record(request: FuzzRequest, answer: FuzzAnswer): void {
    this.requests += 1;
    this.byStatus.set(answer.status, (this.byStatus.get(answer.status) ?? 0) + 1);
    const op = this.byOperation.get(request.operationId) ?? new Map<number, number>();
    op.set(answer.status, (op.get(answer.status) ?? 0) + 1);
    this.byOperation.set(request.operationId, op);
    if (request.credential !== 'right') this.byIntent.wrongCredential += 1;
    else this.byIntent[request.intent] += 1;
  }
}

/** The request, short enough to read in a failure message (long strings cut, with their length). */
export function describeRequest(request: FuzzRequest): string {
  const cut = (s: string) => (s.length > 600 ? `${s.slice(0, 600)}… (${s.length} chars)` : s);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, /authorization|x-api-key/i.test(k) ? `${v.slice(0, 15)}…` : v]),
  );
  return [
    `${request.operationId}: ${request.method} ${cut(request.path)}${request.query ? `?${cut(request.query)}` : ''}`,
    `headers ${JSON.stringify(headers)}`,
    ...(request.body !== undefined ? [`body ${cut(request.body)}`] : []),
  ].join('\n');
}

// The router's order: routes with more literal segments first (src/http/router.ts).
const routes = [...operationIndex]
  .map((op) => ({
    op,
    literals: op.path.split('/').filter((s) => s && !s.startsWith('{')).length,
    regex: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
  }))
  .sort((a, b) => b.literals - a.literals);

/** The operation the server routes this method and (encoded) path to; undefined when none (404 or 405). */
export function routedOperation(method: string, path: string): OperationMeta | undefined {
  return routes.find((r) => r.op.method === method && r.regex.test(path))?.op;
}

/** The path parameters of a request routed to `op`, decoded (those that do not decode are left out). */
export function pathParameters(op: OperationMeta, path: string): Record<string, string> {
  const names = op.path.split('/');
  const values = path.split('/');
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const param = /^\{(\w+)\}$/.exec(name);
    if (!param || values[i] === undefined) return;
    try {
      out[param[1]] = decodeURIComponent(values[i]);
    } catch {
      // Invalid UTF-8 (a lone surrogate): names nothing the fixtures track.
    }
  });
  return out;
}

const checker = new ContractChecker();

/** Why an answer is a failure: a 5xx, an undeclared status or a body that does not match the contract. */
export function contractFailure(request: FuzzRequest, answer: FuzzAnswer): string | undefined {
  // A 5xx is a failure, but for the readiness probe's declared 503 (not ready: e.g. no job worker has run jobs yet
  // for scope=jobs), which the contract check below judges like any answer.
  const notReady = request.operationId === 'getReadiness' && answer.status === 503;
  if (answer.status >= 500 && !notReady)
    return `answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 1000)}`;
  const op = routedOperation(request.method, request.path);
  const violation = checker.violation(
    op && { path: op.path, method: op.method, operationId: op.operationId },
    answer.status,
    answer.body,
    new URLSearchParams(request.query).has('fields'),
  );
  return violation;
}

export interface FuzzTarget {
  app: TestApp;
  ids: IdPool;
  credentials: Credentials;
  /** A request arbitrary per operation id. */
  arbitraries: Map<string, fc.Arbitrary<FuzzRequest>>;
  /** Sends one request; with `retryConnection`, sends it again while its connection fails (fetchAnswered). */
  send: (request: FuzzRequest, options?: { retryConnection?: boolean }) => Promise<FuzzAnswer>;
  /**
   * Sends (see send), records, harvests ids and keeps the customer session alive; throws on a contract
   * failure.
   */
  exercise: (request: FuzzRequest, stats: FuzzStats, options?: { retryConnection?: boolean }) => Promise<FuzzAnswer>;
  close: () => Promise<void>;
}

async function api(
  app: TestApp,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  header = 'Authorization',
): Promise<any> {
  const response = await fetchAnswered(`${app.baseUrl}${path}`, {
    method,
    headers: {
      [header]: header === 'Authorization' ? `Bearer ${token}` : token,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = response.status === 204 ? undefined : await response.json();
  if (response.status >= 300)
    throw new Error(`fuzz setup: ${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * Starts the app and prepares the project to fuzz: a verified store domain (customer operations work),
 * limits raised to the maximum (so answers are not only 429), the demo catalog, a customer with a session,
 * and a second project for the platform operations to change (the fuzzed project and its keys are never
 * suspended, limited or revoked by them).
 */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  // FUZZ_LOG_LEVEL=error shows the server's own account of a 500.
  const app = await startTestApp({ config: { logLevel: (process.env.FUZZ_LOG_LEVEL ?? 'silent') as 'silent' } });
  const created = (
    await api(app, 'POST', '/platform/v1/projects', TEST_PLATFORM_TOKEN, {
      name: 'Fuzz Store',
      domain: 'fuzz-store.example.com',
      domain_verified: true,
      plan: 'pro',
      tax: {
        enabled: true,
        inclusive: false,
        rates: [
          { country: 'US', state: 'CA', rate: 0.0725 },
          { country: 'DE', rate: 0.19 },
        ],
      },
    })
  ).data;
  const projectId: string = created.project.id;
  await api(app, 'PATCH', `/platform/v1/projects/${projectId}`, TEST_PLATFORM_TOKEN, {
    rate_limit_per_minute: 1_000_000,
    monthly_quota: 1_000_000_000,
    // The harness signs its customer in again after a fuzzed logout or password change, from one address: the
    // per-client sign-in budgets (120 and 20 a minute by default) would refuse it in a short, fast run.
    auth_attempts_per_ip_per_minute: 1_000_000,
    auth_attempts_per_email_per_minute: 1_000_000,
  });
  const keys = created.keys as Record<string, { id: string; token: string }>;
  const protectedIds = new Set<string>([projectId, ...Object.values(keys).map((k) => k.id)]);
  const ids = new IdPool(protectedIds);
  // The project the platform operations may change.
  ids.harvest(
    (
      await api(app, 'POST', '/platform/v1/projects', TEST_PLATFORM_TOKEN, {
        name: 'Platform Target',
        domain: 'target.example.com',
      })
    ).data,
  );

  const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: projectId } });
  await seedDemoCatalog(app.deps, project, keys.secret_test.id);

  const secret = keys.secret_test.token;
  const publishable = keys.publishable_test.token;
  const customer = { email: 'fuzz-customer@example.com', password: 'Fuzz-Customer-Passw0rd!', token: '' };
  const registered = (
    await api(
      app,
      'POST',
      '/v1/auth/register',
      publishable,
      { email: customer.email, password: customer.password, first_name: 'Fuzz', last_name: 'Customer' },
      'X-API-Key',
    )
  ).data;
  protectedIds.add(registered.customer.id);
  customer.token = registered.access_token;
  let renewals = 0;
  // The session ends when a fuzzed request logs out or changes the password; a new one is signed in.
  // Concurrent requests may find the session ended at once: each takes its own number, so two renewals that both
  // register never ask for the same e-mail.
  const renewCustomerSession = async () => {
    const renewal = (renewals += 1);
    try {
      customer.token = (
        await api(
          app,
          'POST',
          '/v1/auth/login',
          publishable,
          { email: customer.email, password: customer.password },
          'X-API-Key',
        )
      ).data.access_token;
    } catch {
      customer.email = `fuzz-customer-${renewal}@example.com`;
      const again = (
        await api(
          app,
          'POST',
          '/v1/auth/register',
          publishable,
          { email: customer.email, password: customer.password, first_name: 'Fuzz', last_name: 'Customer' },
          'X-API-Key',
        )
      ).data;
      protectedIds.add(again.customer.id);
      customer.token = again.access_token;
    }
  };

  // Fixtures the preconditions of some operations need (fixtures.ts); kept out of the id pool.
  const call = (method: string, path: string, token: string, body?: unknown, header?: string) =>
    api(app, method, path, token, body, header);
  const outboxKeys = { secret, publishable, platform: TEST_PLATFORM_TOKEN };
  const fixtures = await seedFixtures(call, outboxKeys, projectId);
  for (const id of fixtures.protectedIds) protectedIds.add(id);

  // Everything the project holds so far, so the first requests already aim at resources that exist.
  for (const path of [
    '/v1/products?limit=100',
    '/v1/collections',
    '/v1/locations',
    '/v1/customers',
    '/v1/draft-orders',
    '/v1/orders',
    '/v1/shipping/zones',
    '/v1/search/merchandising',
  ]) {
    ids.harvest(await api(app, 'GET', path, secret));
  }

  const credentials: Credentials = {
    secret,
    publishable,
    platform: TEST_PLATFORM_TOKEN,
    metrics: TEST_METRICS_TOKEN,
    customerToken: () => customer.token,
  };
  const context = { components: document.components.schemas, ids };
  const hints = fixtureHints(fixtures, context, customer, ids);
  const arbitraries = new Map(
    operationIndex.map((op) => [op.operationId, requestArbitrary(op, context, credentials, hints[op.operationId])]),
  );

  const send = async (request: FuzzRequest, options: { retryConnection?: boolean } = {}): Promise<FuzzAnswer> => {
    const started = performance.now();
    const url = `${app.baseUrl}${request.path}${request.query ? `?${request.query}` : ''}`;
    const init = {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    };
    const response = await (options.retryConnection ? fetchAnswered(url, init) : fetch(url, init));
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let body: unknown = text === '' ? undefined : text;
    if (text !== '' && type.includes('json')) body = JSON.parse(text);
    return { status: response.status, body, ms: performance.now() - started };
  };

  const exercise = async (
    request: FuzzRequest,
    stats: FuzzStats,
    options: { retryConnection?: boolean } = {},
  ): Promise<FuzzAnswer> => {
    const answer = await send(request, options);
    stats.record(request, answer);
    if (answer.status < 300) {
      ids.harvest(answer.body);
      harvestFixtures(fixtures, answer.body);
    }
    const failure = contractFailure(request, answer);
    if (failure) throw new Error(`${failure}\n${describeRequest(request)}`);
    if (answer.status < 300 && request.operationId === 'changeCurrentCustomerPassword') {
      // The customer's password is the new one now, and the answer's session the live one.
      customer.password = JSON.parse(request.body!).new_password;
      const token = (answer.body as any)?.data?.access_token;
      if (typeof token === 'string') customer.token = token;
    }
    // A reset token is single use (and a reset uses up the customer's others): a new e-mail for the next.
    if (answer.status < 300 && request.operationId === 'resetPassword')
      await requestReset(call, outboxKeys, projectId, fixtures);
    const op = routedOperation(request.method, request.path);
    // Drafts completed, items and rates deleted, definitions changed: what the hints draw from follows.
    if (op?.operationId === request.operationId && request.credential === 'right') {
      await followAnswer(
        call,
        secret,
        fixtures,
        op.operationId,
        pathParameters(op, request.path),
        answer.status,
        answer.body,
      );
    }
    if (op?.auth === 'customer' && answer.status === 401 && request.credential === 'right')
      await renewCustomerSession();
    return answer;
  };

  return { app, ids, credentials, arbitraries, send, exercise, close: () => app.close() };
}

/**
 * One valid-only pass over the creating operations (POST), twice, so ids of every kind exist before
 * fuzzing; a request whose connection fails is sent again (bounded, see fetchAnswered), since the warm-up
 * judges answers, not the machine's load. Returns the failures it met (each a message with its request;
 * not shrunk).
 */
export async function warmUp(target: FuzzTarget, stats: FuzzStats, perOperation = 6): Promise<string[]> {
  const failures: string[] = [];
  const posts = operationIndex.filter((op) => op.method === 'POST' && op.auth !== 'platform');
  for (let pass = 0; pass < 2; pass++) {
    for (const op of posts) {
      const samples = fc.sample(
        target.arbitraries.get(op.operationId)!.filter((r) => r.intent === 'valid' && r.credential === 'right'),
        { numRuns: perOperation, seed: pass * 1000 + op.operationId.length },
      );
      for (const request of samples)
        await target.exercise(request, stats, { retryConnection: true }).catch((error: Error) =>
          // A contract failure names its request; a failed connection does not, nor its cause.
          failures.push(
            isConnectionFailure(error)
              ? `${error.message} (${String(error.cause)})\n${describeRequest(request)}`
              : error.message,
          ),
        );
    }
  }
  return failures;
}
