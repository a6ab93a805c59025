import type { Middleware } from 'koa';
import type { AppDeps } from '../../app-deps.js';
import type { OperationMeta } from '../../generated/operations.js';
import type { Ctx, DataMode } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { authenticateAccessToken, requireStoreDomain, tokenIssuer } from '../../modules/customer-auth/index.js';
import { API_KEY_FORMAT, findKeyByToken, secretsEqual } from '../../modules/platform/index.js';
import type { AppContext, RequestState } from '../state.js';

const unauthorized = (message: string) => new AppError('unauthorized', message);
const SECRET_KEY_IN_HEADER =
  'A secret key goes in Authorization: Bearer <secret key>, never in X-API-Key, which is for publishable keys.';

/**
 * Checks the operation's credential (its `security` in openapi.yaml): missing, malformed or revoked keys
 * answer 401; then a suspended project 403 account_suspended; a publishable key on a secret operation 403
 * forbidden ("needs a secret key", in X-API-Key or as Bearer); a secret key in X-API-Key 401 on every operation
 * (secret keys are Authorization: Bearer only); a live publishable key without a verified domain
 * 403 domain_not_verified. Publishable-key operations take the key in X-API-Key or as Authorization: Bearer;
 * customer-token operations (/v1/me) take it in X-API-Key and an access token of the key's project as
 * Authorization: Bearer, whose session must not have ended (401 otherwise); the actor is the customer.
 * Publishable operations that also take a customer token (catalog reads) read as that customer when one is
 * sent as Bearer beside the key in X-API-Key, with the same checks.
 * Customer-auth operations of a project without a domain answer 400 ("Store domain must be configured to use
 * customer auth.") once the key is known.
 */
export function authenticate(operation: OperationMeta, deps: AppDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    switch (operation.auth) {
      case 'none':
        break;
      case 'platform':
        checkPlatformToken(ctx, deps.config.platformToken);
        break;
      case 'metrics':
        checkMetricsToken(ctx, deps.config.metricsToken);
        break;
      case 'customer':
        ctx.state.service = await authenticateCustomer(ctx, operation, deps);
        break;
      default:
        ctx.state.service = await authenticateKey(ctx, operation, deps);
        if (sendsCustomerToken(ctx, operation)) ctx.state.service = await asCustomer(ctx, ctx.state.service, deps);
        // Before the body is looked at, so every request of a project without a domain gets this message.
        if (operation.tag === 'customer-auth') requireStoreDomain(ctx.state.service);
    }
    await next();
  };
}

function bearer(
  ctx: AppContext,
  malformed = 'Malformed Authorization header. Send Authorization: Bearer <API key>.',
): string | undefined {
  const header = ctx.get('Authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized(malformed);
  return match[1];
}

/** Says what is wrong: the prefix, or (with a right prefix) the rest of the key. */
function malformedKeyMessage(token: string): string {
  const prefix = /^(sk|pk)_(test|live)_/.exec(token)?.[0];
  return prefix
    ? `Malformed API key: after ${prefix} a key has exactly 40 letters and digits. Check that the whole key was copied.`
    : 'Malformed API key. Keys start with sk_live_, sk_test_, pk_live_ or pk_test_.';
}

function checkPlatformToken(ctx: AppContext, platformToken: string | undefined): void {
  // The router answers 404 for /platform when there is no token; this is the second line of defence.
  if (!platformToken) throw new AppError('not_found', 'Not found.');
  const token = bearer(ctx);
  if (!token) throw unauthorized('Missing platform token. Send Authorization: Bearer <PLATFORM_TOKEN>.');
  if (!secretsEqual(token, platformToken)) throw unauthorized('Invalid platform token.');
}

function checkMetricsToken(ctx: AppContext, metricsToken: string | undefined): void {
  // The router has no /metrics route without a token; this is the second line of defence.
  if (!metricsToken) throw new AppError('not_found', 'Not found.');
  const token = bearer(ctx, 'Malformed Authorization header. Send Authorization: Bearer <METRICS_TOKEN>.');
  if (!token) throw unauthorized('Missing metrics token. Send Authorization: Bearer <METRICS_TOKEN>.');
  if (!secretsEqual(token, metricsToken)) throw unauthorized('Invalid metrics token.');
}

async function authenticateCustomer(ctx: AppContext, operation: OperationMeta, deps: AppDeps): Promise<Ctx> {
  const keyCtx = await authenticateKey(ctx, operation, deps);
  requireStoreDomain(keyCtx);
  return asCustomer(ctx, keyCtx, deps);
}

/** The key's context with the customer of the request's access token as actor; 401 unless the token is valid for the key's project and its session has not ended. */
async function asCustomer(ctx: AppContext, keyCtx: Ctx, deps: AppDeps): Promise<Ctx> {
  const token = bearer(ctx, 'Malformed Authorization header. Send Authorization: Bearer <access token>.');
  const { customerId, sessionId } = await authenticateAccessToken(
    deps.db,
    keyCtx.project,
    tokenIssuer(deps.config).expect,
    token,
    deps.caches,
  );
  return { ...keyCtx, actor: { kind: 'customer', id: customerId, sessionId } };
}

/**
 * Whether a publishable operation that takes an optional customer token got one: the key in X-API-Key and
 * something in Authorization other than an API key (a client that sends its key in both is not signed in).
 */
function sendsCustomerToken(ctx: AppContext, operation: OperationMeta): boolean {
  if (!operation.customerTokenOptional || !ctx.get('X-API-Key') || !ctx.get('Authorization')) return false;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'))?.[1];
  return !(token && API_KEY_FORMAT.test(token));
}

/** Where the key was found: `X-API-Key` or `Authorization: Bearer`. */
export type KeySource = 'header' | 'bearer';

/**
 * The key of the request and where it came from. Publishable-key operations read `X-API-Key` first (the one
 * way that works everywhere) and, when it is absent, `Authorization: Bearer`; customer-token operations only
 * `X-API-Key`, since Authorization carries the access token. Secret operations take Authorization: Bearer;
 * a key in `X-API-Key` is still looked at there, so a publishable key is told it needs a secret key and a
 * secret key where it goes.
 */
function requestKey(ctx: AppContext, operation: OperationMeta): { token: string; source: KeySource } | undefined {
  const header = ctx.get('X-API-Key');
  if (operation.auth === 'customer') return header ? { token: header, source: 'header' } : undefined;
  if (operation.auth === 'publishable' && header) return { token: header, source: 'header' };
  const token = bearer(ctx);
  if (token) return { token, source: 'bearer' };
  return header ? { token: header, source: 'header' } : undefined;
}

/** A key's class as its prefix says (`sk_` secret, `pk_` publishable); the database agrees for every key it holds. */
export type KeyClass = 'secret' | 'publishable';

/**
 * The key rules that need no database (the mock, mocks/mock-front.ts, applies them too): the key sent where the
 * operation takes it (401 when missing) and well formed (401 naming what is wrong). Returns it and its source.
 */
export function sentKey(ctx: AppContext, operation: OperationMeta): { token: string; source: KeySource } {
  const sent = requestKey(ctx, operation);
  if (!sent) {
    throw unauthorized(
      operation.auth === 'secret'
        ? 'Missing API key. Send it as Authorization: Bearer <API key>.'
        : 'Missing API key. Send your publishable key in the X-API-Key header.',
    );
  }
  if (!API_KEY_FORMAT.test(sent.token)) throw unauthorized(malformedKeyMessage(sent.token));
  return sent;
}

/** The class rules, after the key is known: a publishable key on a secret operation 403; a secret key in X-API-Key 401. */
export function checkKeyClass(type: KeyClass, source: KeySource, operation: OperationMeta): void {
  if (type === 'publishable' && operation.auth === 'secret') {
    throw new AppError(
      'forbidden',
      'This operation needs a secret key (Authorization: Bearer sk_...); publishable keys cannot use it.',
    );
  }
  // One rule on every operation (the contract's secretKey scheme): a secret key is a bearer credential only.
  if (type === 'secret' && source === 'header') throw unauthorized(SECRET_KEY_IN_HEADER);
}

async function authenticateKey(ctx: AppContext, operation: OperationMeta, deps: AppDeps): Promise<Ctx> {
  const { token, source } = sentKey(ctx, operation);
  const key = await findKeyByToken(deps.db, token, deps.authCache);
  if (!key || key.revokedAt) throw unauthorized('Invalid API key: it does not exist or was revoked.');
  const { project } = key;
  if (project.suspended) {
    throw new AppError('account_suspended', 'This account is suspended. Contact support to restore access.');
  }
  checkKeyClass(key.type as KeyClass, source, operation);
  if (key.type === 'publishable' && key.mode === 'live' && !(project.domain && project.domainVerified)) {
    throw new AppError(
      'domain_not_verified',
      'Live publishable keys require a verified store domain. Use a test key until the domain is verified.',
    );
  }
  return {
    db: deps.db,
    jobs: deps.jobs,
    log: deps.log,
    caches: deps.caches,
    project,
    actor: { kind: 'api_key', id: key.id, keyType: key.type as 'secret' | 'publishable' },
    mode: dataMode(key, ctx.get('X-Test-Mode')),
    requestId: ctx.state.requestId,
  };
}

/**
 * The data mode of the request (openapi.yaml, "Test and live data"): the key's, except that a live secret key
 * with `X-Test-Mode: true` works on test data; the header is ignored with other keys, and must be true or
 * false.
 */
function dataMode(key: { type: string; mode: string }, testModeHeader: string): DataMode {
  if (testModeHeader !== '' && testModeHeader !== 'true' && testModeHeader !== 'false') {
    throw new AppError('invalid_request', 'X-Test-Mode must be true or false.', { field: 'X-Test-Mode' });
  }
  return key.type === 'secret' && testModeHeader === 'true' ? 'test' : (key.mode as DataMode);
}
