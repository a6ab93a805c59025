import type { Middleware } from 'koa';
import type { Config } from '../../config.js';
import { clientAddress, trustedProxies } from '../../shared/trusted-proxies.js';
import type { RequestState } from '../state.js';

// trustProxy set without addresses (a test's app): the balancer runs on this machine.
const LOOPBACK = ['127.0.0.0/8', '::1'];

/**
 * Sets `ctx.ip` (what per-client budgets and handlers read) to the client's address: the connection's, or with
 * TRUST_PROXY, the address a trusted load balancer appended to X-Forwarded-For. A header from any other
 * connection is ignored, so no client can choose its own address. Without TRUST_PROXY it does nothing.
 */
export function clientAddressOf(config: Pick<Config, 'trustProxy' | 'trustedProxies'>): Middleware<RequestState> {
  if (!config.trustProxy) return (_ctx, next) => next();
  const trusted = trustedProxies(config.trustedProxies?.length ? config.trustedProxies : LOOPBACK);
  return (ctx, next) => {
    ctx.request.ip = clientAddress(
      ctx.req.socket.remoteAddress ?? '',
      ctx.get('X-Forwarded-For') || undefined,
      trusted,
    );
    return next();
  };
}
