import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

// undici is loaded when the first pool is made, not with the app: most processes (and test files) start without
// an outbound request to make.
const load = createRequire(import.meta.url);

// Why these numbers: receivers are many small hosts; a few warm sockets each is plenty, idle sockets
// are dropped well before typical server-side idle limits (5 s on Node, 60 s on nginx), and the
// connect timeout is only a backstop under each request's own total budget.
const CONNECTIONS_PER_ORIGIN = 16;
const KEEP_ALIVE_MS = 4_000;
const CONNECT_TIMEOUT_MS = 10_000;

export interface OutboundAgentOptions {
  /** Trusted certificate authorities (PEM) instead of Node's default roots; for test receivers. */
  ca?: string | Buffer | Array<string | Buffer>;
}

// Requests are dispatched to an already checked IP address, so the socket layer never needs DNS;
// if anything ever asks it to resolve a name, that is a bug and must not quietly reach the network.
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(new Error(`outbound connections use checked addresses only; refused to resolve ${hostname}`), '', 4);
};

/** A keep-alive pool whose sockets only ever connect to IP addresses and verify certificates. */
export class OutboundAgent {
  /** Pools are keyed by the checked IP origin; undici reconnects when a request's TLS server name differs. */
  readonly dispatcher: Dispatcher;

  constructor(options: OutboundAgentOptions = {}) {
    const { Agent } = load('undici') as typeof Undici;
    this.dispatcher = new Agent({
      connections: CONNECTIONS_PER_ORIGIN,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
      connect: {
        timeout: CONNECT_TIMEOUT_MS,
        lookup: refuseLookup,
        rejectUnauthorized: true,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
    });
  }

  /** Lets in-flight requests finish, then closes every socket. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

let shared: OutboundAgent | undefined;

/** The one pool of this process; made on first use. */
export function sharedOutboundAgent(): OutboundAgent {
  shared ??= new OutboundAgent();
  return shared;
}

/** Graceful stop: closes the process-wide pool after in-flight requests; a later request opens a new one. */
export async function closeOutbound(): Promise<void> {
  const closing = shared;
  shared = undefined;
  await closing?.close();
}
