import createClient, {
  type Client,
  type ClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';
import type { StorefrontOperations } from './generated/storefront.js';
import type { ExactBody } from './exact.js';
import { paginator, type ListPath, type Paginate } from './paginate.js';
import type { SparseAware } from './sparse.js';

export interface CommerceClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000 (or the mock, http://127.0.0.1:4010). */
  baseUrl: string;
  /** A secret key (`sk_test_...`, `sk_live_...`) or the platform token, sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** A publishable key (`pk_test_...`, `pk_live_...`), sent as `X-API-Key` (storefront operations). */
  publishableKey?: string;
  /** A customer access token, sent as `Authorization: Bearer` (instead of `apiKey`) with `publishableKey`. */
  accessToken?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (defaults to the global fetch). */
  fetch?: ClientOptions['fetch'];
}

type GetPath = PathsWithMethod<paths, 'get'>;
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/**
 * `InitParam<ExactBody<Init, Allowed>>`, the same type written so that TypeScript checks it cheaply: the index signature
 * goes inside ExactBody (as `ExactBody<Init, Allowed> & { ... }` every declaration's rest-parameter check resolved the
 * body of every path, about 5 s of each type check), and ExactBody, which only adds an optional `body`, keeps Init's
 * required keys.
 */
type ExactInitParam<Init, Allowed> =
  RequiredKeysOf<Init> extends never
    ? [ExactBody<Init & { [key: string]: unknown }, Allowed>?]
    : [ExactBody<Init & { [key: string]: unknown }, Allowed>];

/**
 * The path argument: the path itself when the client may call it with that method, otherwise a type naming the
 * path, so a wrong path is a type error that names it (not an error about the number of arguments).
 */
export type PathArgument<P extends string, Allowed extends string, Method extends string> = P extends Allowed
  ? P
  : `${P} is not a ${Uppercase<Method>} operation of this client`;

/** openapi-fetch's GET (on the paths `Allowed`), with answers to requests that send `fields` typed as sparse objects. */
export type SparseAwareGet<Allowed extends GetPath = GetPath> = <
  P extends string,
  Init extends MaybeOptionalInit<paths[P & Allowed], 'get'>,
>(
  url: PathArgument<P, Allowed, 'get'>,
  ...init: InitParam<Init>
) => Promise<SparseAware<FetchResponse<paths[P & Allowed]['get'], Init, MediaType>, Init>>;

type BodyMethod = 'post' | 'put' | 'patch';

/** openapi-fetch's POST, PUT and PATCH (on the paths `Allowed`), refusing body properties the contract does not declare. */
export type ExactBodyCall<
  M extends BodyMethod,
  Allowed extends PathsWithMethod<paths, M> = PathsWithMethod<paths, M>,
> = <P extends string, Init extends MaybeOptionalInit<paths[P & Allowed], M>>(
  url: PathArgument<P, Allowed, M>,
  ...init: ExactInitParam<Init, MaybeOptionalInit<paths[P & Allowed], M>>
) => Promise<
  paths[P & Allowed][M] extends Record<string | number, unknown>
    ? FetchResponse<paths[P & Allowed][M], Init, MediaType>
    : never
>;

type DeletePath = PathsWithMethod<paths, 'delete'>;

/** openapi-fetch's DELETE on the paths `Allowed`: another path is a type error naming it. */
export type DeleteCall<Allowed extends DeletePath = DeletePath> = <
  P extends string,
  Init extends MaybeOptionalInit<paths[P & Allowed], 'delete'>,
>(
  url: PathArgument<P, Allowed, 'delete'>,
  ...init: InitParam<Init>
) => Promise<
  paths[P & Allowed]['delete'] extends Record<string | number, unknown>
    ? FetchResponse<paths[P & Allowed]['delete'], Init, MediaType>
    : never
>;

/** The typed client: openapi-fetch's methods over the contract's paths, plus `paginate` and `withAccessToken`. */
export type CommerceClient = Omit<Client<paths>, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'request'> & {
  GET: SparseAwareGet;
  POST: ExactBodyCall<'post'>;
  PUT: ExactBodyCall<'put'>;
  PATCH: ExactBodyCall<'patch'>;
  /** `for await (const customer of api.paginate('/v1/customers', { query: { limit: 100 } }))`. */
  paginate: Paginate;
  /** A client for the signed-in customer: the same publishable key, `Authorization: Bearer <accessToken>`. */
  withAccessToken(accessToken: string): CommerceClient;
};

/** The `Authorization` and `X-API-Key` headers the options ask for. */
export function authHeaders(
  options: Pick<CommerceClientOptions, 'apiKey' | 'publishableKey' | 'accessToken'>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const bearer = options.accessToken ?? options.apiKey;
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (options.publishableKey) headers['X-API-Key'] = options.publishableKey;
  return headers;
}

/**
 * A typed client for the Commerce API: paths, parameters, bodies and answers come from openapi.yaml.
 * List parameters are sent as the contract writes them (`fields=a,b`).
 */
export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, ...authHeaders(options) },
    fetch: options.fetch,
    querySerializer: { array: { style: 'form', explode: false } },
  });
  carryConsistencyToken(client);
  const extended = Object.assign(client, {
    paginate: paginator(client),
    withAccessToken: (accessToken: string) => createCommerceClient({ ...options, accessToken }),
  });
  // The same functions at run time; CommerceClient only narrows what their arguments may be (exact bodies).
  return extended as unknown as CommerceClient;
}

const CONSISTENCY_TOKEN = 'X-Consistency-Token';

/** A consistency token's WAL position (`X/Y`, hexadecimal) as a number, or undefined when it is not one. */
function walPosition(token: string): bigint | undefined {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(token);
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : undefined;
}

/**
 * Read-your-writes behind any load balancer: the furthest consistency token this client's answers carried (the
 * API's `X-Consistency-Token`, see openapi.yaml "Consistency and read replicas") goes with every later request,
 * unless the request sets its own.
 */
function carryConsistencyToken(client: Client<paths>): void {
  let latest: { token: string; position: bigint } | undefined;
  client.use({
    onRequest({ request }) {
      if (latest && !request.headers.has(CONSISTENCY_TOKEN)) request.headers.set(CONSISTENCY_TOKEN, latest.token);
      return request;
    },
    onResponse({ response }) {
      const token = response.headers.get(CONSISTENCY_TOKEN);
      const position = token === null ? undefined : walPosition(token);
      if (token && position !== undefined && (!latest || position > latest.position)) latest = { token, position };
      return response;
    },
  });
}

/** The paths a publishable key (and a customer's access token) may call with `Method` (openapi.yaml's security). */
export type StorefrontPath<Method extends string> = {
  [P in keyof StorefrontOperations]: Method extends StorefrontOperations[P] ? P : never;
}[keyof StorefrontOperations];

/**
 * One client for a storefront: only the operations a publishable key (and a signed-in customer) may call, before
 * and after the customer signs in; any other path (a secret-key operation such as `/v1/customers`) is a type error
 * naming it.
 */
export type StorefrontClient = Omit<CommerceClient, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'paginate'> & {
  GET: SparseAwareGet<StorefrontPath<'get'>>;
  POST: ExactBodyCall<'post', StorefrontPath<'post'>>;
  PATCH: ExactBodyCall<'patch', StorefrontPath<'patch'>>;
  /** The storefront's deletes: a checkout's line or discount code, the signed-in customer's addresses (`shop.DELETE('/v1/me/addresses/{id}', ...)`). */
  DELETE: DeleteCall<StorefrontPath<'delete'>>;
  /** `for await (const product of shop.paginate('/v1/products', { query: { limit: 100 } }))`. */
  paginate: Paginate<ListPath & StorefrontPath<'get'>>;
  /** Sends `Authorization: Bearer <accessToken>` from now on (after register, login or a token refresh). */
  signIn(accessToken: string): void;
  /** Stops sending the access token (after logout). */
  signOut(): void;
  /** Whether an access token is being sent. */
  readonly signedIn: boolean;
};

/**
 * A storefront client: the publishable key in `X-API-Key` on every request (the one header every
 * publishable-key operation takes: catalog reads, search, shipping rates, customer auth, `/v1/me`), and,
 * once `signIn(accessToken)` was called, the customer's access token as `Authorization: Bearer`.
 */
export function createStorefrontClient(
  options: Omit<CommerceClientOptions, 'apiKey'> & { publishableKey: string },
): StorefrontClient {
  let accessToken = options.accessToken;
  const client = createCommerceClient({ ...options, accessToken: undefined });
  client.use({
    onRequest({ request }) {
      if (accessToken) request.headers.set('Authorization', `Bearer ${accessToken}`);
      return request;
    },
  });
  return Object.defineProperties(client, {
    signIn: { value: (token: string) => void (accessToken = token) },
    signOut: { value: () => void (accessToken = undefined) },
    signedIn: { get: () => accessToken !== undefined },
  }) as unknown as StorefrontClient; // the same functions; the type narrows the paths to the storefront's
}

/** Header parameters that make a create safe to retry: pass the same key to every retry. */
export function idempotencyHeader(key: string = globalThis.crypto.randomUUID()): { 'Idempotency-Key': string } {
  return { 'Idempotency-Key': key };
}
