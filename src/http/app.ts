import Koa from 'koa';
import type { AppDeps } from '../app-deps.js';
import type { Handlers } from './contract.js';
import { handlers as allHandlers } from './handlers.js';
import { accessLog } from './middleware/access-log.js';
import { errorHandler } from './middleware/errors.js';
import { itemJsonAnswers } from './middleware/item-json.js';
import { requestMetrics } from './middleware/metrics.js';
import { publishedDocuments } from './middleware/published-documents.js';
import { requestId } from './middleware/request-id.js';
import { responseCheck } from './middleware/response-check.js';
import { securityHeaders } from './middleware/security-headers.js';
import { buildRouter, unmatched } from './router.js';
import type { RequestState } from './state.js';

/** The Koa application: (request metrics), security headers, request id, access log, published documents' caching and compression, (response check), list pages' encoding, error mapping, then the generated routes. */
export function createApp(deps: AppDeps, handlers: Handlers = allHandlers): Koa<RequestState> {
  const app = new Koa<RequestState>();
  // Behind a trusted proxy, ctx.ip is the address that proxy appended to X-Forwarded-For (the last one: any
  // earlier ones came from the client and prove nothing).
  app.proxy = deps.config.trustProxy;
  app.maxIpsCount = 1;
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
