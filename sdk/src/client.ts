import createClient, {
  type Client,
  type ClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';
import { paginator, type Paginate } from './paginate.js';
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

/** openapi-fetch's GET, with answers to requests that send `fields` typed as sparse objects. */
export type SparseAwareGet = <P extends GetPath, Init extends MaybeOptionalInit<paths[P], 'get'>>(
  url: P,
  ...init: InitParam<Init>
) => Promise<SparseAware<FetchResponse<paths[P]['get'], Init, MediaType>, Init>>;

/** The typed client: openapi-fetch's methods over the contract's paths, plus `paginate` and `withAccessToken`. */
export type CommerceClient = Omit<Client<paths>, 'GET' | 'request'> & {
  GET: SparseAwareGet;
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
  return Object.assign(client, {
    paginate: paginator(client),
    withAccessToken: (accessToken: string) => createCommerceClient({ ...options, accessToken }),
  });
}

/** A storefront client: the publishable key in `X-API-Key`, and the customer's access token once signed in. */
export function createStorefrontClient(
  options: Omit<CommerceClientOptions, 'apiKey'> & { publishableKey: string },
): CommerceClient {
  return createCommerceClient(options);
}

/** Header parameters that make a create safe to retry: pass the same key to every retry. */
export function idempotencyHeader(key: string = globalThis.crypto.randomUUID()): { 'Idempotency-Key': string } {
  return { 'Idempotency-Key': key };
}
