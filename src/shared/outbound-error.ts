/** Why an outbound request did not produce a response; callers record it as the delivery failure. */
export type OutboundFailure =
  | 'invalid_url' // not a URL, or one with credentials in it
  | 'scheme' // anything but https:
  | 'private_address' // the host is, or resolves to, a loopback/private/reserved address
  | 'dns' // the host name did not resolve
  | 'timeout' // the total time budget ran out (DNS, connect, TLS, headers or body)
  | 'connect' // TCP connection refused or unreachable
  | 'tls' // handshake failed or the certificate did not verify for the host name
  | 'network' // the connection broke after it was established
  | 'protocol'; // the peer did not speak valid HTTP/1.1

/**
 * The one error the outbound helper throws. The message names the host, never the full URL (query
 * strings may carry tokens), request or response bodies, or headers.
 */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}
