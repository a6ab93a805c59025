import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { operationIndex } from '../src/generated/operations.js';
import { BROWSER_AUTH, corsHeaders, corsPreflight } from '../src/http/middleware/cors.js';
import type { RequestState } from '../src/http/state.js';

/** The operations' paths as patterns, with the methods of their browser (publishable-key) operations. */
const paths = [...new Set(operationIndex.map((op) => op.path))].map((path) => ({
  pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
  methods: operationIndex.filter((op) => op.path === path).map((op) => op.method),
  browser: operationIndex.filter((op) => op.path === path && BROWSER_AUTH.has(op.auth)).map((op) => op.method),
  literals: path.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
}));

/** The path entry a URL path matches, the one with the most literal segments first (as the server's router). */
const match = (path: string) =>
  paths.filter((entry) => entry.pattern.test(path)).sort((a, b) => b.literals - a.literals)[0];

/**
 * The mock's front: Prism (started with --cors false) behind the server's own CORS rules, so a browser sees
 * what the server does: browser (publishable-key) operations carry `Access-Control-Allow-Origin: *` and
 * their paths answer the preflight; secret-key paths answer OPTIONS with 405 and send no CORS headers.
 */
export function startMockFront(host: string, port: number, prismUrl: string): Promise<http.Server> {
  const app = new Koa<RequestState>();
  app.use(async (ctx, next) => {
    const entry = match(ctx.path);
    if (ctx.method === 'OPTIONS') {
      if (entry && entry.browser.length > 0) return corsPreflight(entry.browser)(ctx, next);
      const allowed = entry?.methods ?? [];
      ctx.status = allowed.length > 0 ? 405 : 404;
      if (allowed.length > 0) ctx.set('Allow', allowed.join(', '));
      ctx.body = {
        error:
          allowed.length > 0
            ? {
                code: 'invalid_request',
                message: `Method OPTIONS is not allowed here. Allowed methods are ${allowed.join(', ')}.`,
              }
            : {
                code: 'not_found',
                message: `No such path: OPTIONS ${ctx.path}. The operations are listed at /openapi.json.`,
              },
      };
      return;
    }
    if (entry?.browser.some((method) => method === ctx.method)) return corsHeaders()(ctx, next);
    return next();
  });
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(ctx.request.headers).flatMap(([name, value]) =>
        name === 'host' || name === 'connection' || value === undefined ? [] : [[name, String(value)]],
      ),
    );
    const answer = await fetch(`${prismUrl}${ctx.url}`, {
      method: ctx.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    ctx.status = answer.status;
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
        ctx.set(name, value);
    });
    ctx.body = Buffer.from(await answer.arrayBuffer());
  });
  const callback = app.callback();
  const server = http.createServer((req, res) => void callback(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export const portOf = (server: http.Server) => (server.address() as AddressInfo).port;
