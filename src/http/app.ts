import Koa from 'koa';
import type { AppDeps } from '../app-deps.js';
import type { Handlers } from '../shared/contract.js';
import { handlers as allHandlers } from './handlers.js';
import { accessLog } from './middleware/access-log.js';
import { clientAddressOf } from './middleware/client-address.js';
import { errorHandler } from './middleware/errors.js';
import { itemJsonAnswers } from './middleware/item-json.js';
import { requestMetrics } from './middleware/metrics.js';
import { publishedDocuments } from './middleware/published-documents.js';
import { requestId } from './middleware/request-id.js';
import { responseCheck } from './middleware/response-check.js';
import { securityHeaders } from './middleware/security-headers.js';
import { buildRouter, unmatched } from './router.js';
import type { RequestState } from './state.js';

/** The Koa application: the client's address, (request metrics), security headers, request id, access log, published documents' caching and compression, (response check), list pages' encoding, error mapping, then the generated routes. */
export function createApp(deps: AppDeps, handlers: Handlers = allHandlers): Koa<RequestState> {
  const app = new Koa<RequestState>();
  // ctx.ip is set by clientAddressOf (X-Forwarded-For believed from TRUST_PROXY's addresses only), never by Koa's
  // `proxy`, which would believe the header from any connection.
  app.proxy = false;
  app.use(clientAddressOf(deps.config));
  if (deps.metrics) app.use(requestMetrics(deps.metrics));
  app.use(securityHeaders());
  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(publishedDocuments());
  if (deps.config.responseCheck) app.use(responseCheck(deps.log));
  app.use(itemJsonAnswers());
  app.use(errorHandler(deps.log));
  const router = buildRouter(deps, handlers);
  app.use(router.routes());
  app.use(unmatched(router));
  return app;
}
