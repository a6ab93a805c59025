import dns from 'node:dns';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { nonPublicRange, parseTarget, type OutboundTarget } from './outbound-address.js';
import { sharedOutboundAgent, type OutboundAgent } from './outbound-agent.js';
import { toOutboundError } from './outbound-failure.js';
import { OutboundError } from './outbound-error.js';

export { OutboundError, type OutboundFailure } from './outbound-error.js';
export { OutboundAgent, closeOutbound, type OutboundAgentOptions } from './outbound-agent.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 64 * 1024; // enough for any error page worth recording

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Turns a host name into addresses; the default is dns.lookup with all: true. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface PostJsonOptions {
  /** Sent as given, except Host and Content-Length, which the helper sets. Content-Type defaults to JSON. */
  headers?: Record<string, string>;
  /** One budget for DNS, connect, TLS, sending and reading the response (webhooks 10 s, carriers 5 s). */
  timeoutMs?: number;
  /** The response body is read up to this many bytes; the rest is dropped and `truncated` set. */
  maxBodyBytes?: number;
  /** Allow loopback, private and reserved addresses: pass config.allowPrivateNetworkTargets. Default false. */
  allowPrivate?: boolean;
  /** Replaces DNS (tests). */
  resolve?: Resolver;
  /** Replaces the process-wide pool (tests trusting their own CA). */
  agent?: OutboundAgent;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names, as received. */
  headers: Record<string, string | string[]>;
  body: string;
  truncated: boolean;
  durationMs: number;
  /** The checked IP address the request was sent to. */
  address: string;
}

/**
 * POSTs `body` to an https URL whose host is, and resolves only to, public addresses (unless
 * allowPrivate); connects to the very address it checked, with SNI, Host and certificate checks for
 * the URL's host; never follows redirects; gives up after timeoutMs in total; reads at most
 * maxBodyBytes of the answer. Every failure to get an HTTP response is an OutboundError.
 */
export async function postJson(url: string, body: string, options: PostJsonOptions = {}): Promise<OutboundResponse> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(timeoutMs > 0) || !Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError('postJson: timeoutMs must be positive and maxBodyBytes a non-negative integer');
  }
  const signal = AbortSignal.timeout(timeoutMs);
  const target = parseTarget(url);
  try {
    const address = await checkedAddress(target, options, signal);
    const request: Dispatcher.RequestOptions = {
      origin: `https://${net.isIPv6(address) ? `[${address}]` : address}:${target.port}`,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      headers: requestHeaders(target, options.headers ?? {}),
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    };
    const agent = options.agent ?? sharedOutboundAgent();
    // undici honours the signal only once a socket is connected, so the budget is enforced here too.
    const answer = await untilAborted(exchange(agent, request, maxBodyBytes), signal);
    return { ...answer, durationMs: Math.round(performance.now() - started), address };
  } catch (error) {
    throw toOutboundError(error, target.hostname, signal.aborted ? timeoutMs : undefined);
  }
}

type Answer = Pick<OutboundResponse, 'status' | 'headers' | 'body' | 'truncated'>;

async function exchange(
  agent: OutboundAgent,
  request: Dispatcher.RequestOptions,
  maxBodyBytes: number,
): Promise<Answer> {
  const response = await agent.dispatcher.request(request);
  const headers = Object.entries(response.headers).filter(
    (entry): entry is [string, string | string[]] => entry[1] !== undefined,
  );
  const read = await readCapped(response.body, maxBodyBytes);
  return { status: response.statusCode, headers: Object.fromEntries(headers), ...read };
}

/** The address to connect to: the IP literal, or the first DNS answer, after every answer passed the check. */
async function checkedAddress(target: OutboundTarget, options: PostJsonOptions, signal: AbortSignal): Promise<string> {
  const addresses = target.literalIp
    ? [target.literalIp]
    : (await untilAborted(resolveHost(target.hostname, options.resolve), signal)).map((answer) => answer.address);
  if (addresses.length === 0 || addresses.some((address) => net.isIP(address) === 0)) {
    throw new OutboundError('dns', `"${target.hostname}" did not resolve to an IP address`);
  }
  if (!options.allowPrivate) {
    // Every answer must be public: a name mixing public and private answers is refused, not filtered.
    for (const address of addresses) {
      const kind = nonPublicRange(address);
      if (kind === undefined) continue;
      const subject = target.literalIp ? `${address} is` : `"${target.hostname}" resolves to`;
      const message = `${subject} a non-public address (${kind}); private network targets are not allowed`;
      throw new OutboundError('private_address', message);
    }
  }
  return addresses[0];
}

async function resolveHost(hostname: string, resolve: Resolver | undefined): Promise<ResolvedAddress[]> {
  try {
    return resolve ? await resolve(hostname) : await dns.promises.lookup(hostname, { all: true });
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown error';
    throw new OutboundError('dns', `could not resolve "${hostname}" (${code})`, { cause: error });
  }
}

/** Settles with `work`, or rejects when the budget runs out; work that cannot be cancelled is left behind, not awaited. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    work.then(
      (value) => (done(), resolve(value)),
      (error: Error) => (done(), reject(error)),
    );
  });
}

function requestHeaders(target: OutboundTarget, given: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (lower !== 'host' && lower !== 'content-length') headers[lower] = value;
  }
  // The origin is an IP address; this Host header is also what undici takes as the TLS server name.
  headers.host = target.url.host;
  return headers;
}

/** Reads at most `limit` bytes, then drops the connection rather than draining an unbounded body. */
async function readCapped(body: Readable, limit: number): Promise<{ body: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (chunk.length > limit - size) {
      chunks.push(chunk.subarray(0, limit - size));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) body.destroy();
  // stream: true holds back a multi-byte character cut in half by the cap instead of mangling it.
  return { body: new TextDecoder().decode(Buffer.concat(chunks), { stream: truncated }), truncated };
}
