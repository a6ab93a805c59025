import { DATABASE_RETRY_AFTER_SECONDS } from '../../db/availability.js';
import { unreadyReason } from '../../db/readiness.js';
import { jobsUnreadyReason } from '../../jobs/health.js';
import { AppError } from '../../shared/errors.js';
import type { AreaHandlers } from '../../shared/contract.js';
import { docsAsset, docsPage, DOCS_ASSETS } from './docs-page.js';

// The published document is megabytes of generated text: loaded when first asked for, not by every start.
const published = () => import('../../generated/document.js');
let parsedDocument: Promise<Record<string, unknown>> | undefined;

/** The service's own endpoints: health and the published contract. */
export const healthDocsHandlers = {
  getHealth: async ({ deps }) => {
    try {
      await deps.db.$queryRaw`SELECT 1`;
      return { status: 200, body: { status: 'ok' } };
    } catch {
      return {
        status: 503,
        body: { status: 'unavailable' },
        headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      };
    }
  },
  getReadiness: async ({ deps, query }) => {
    // scope=jobs: also whether a job worker ran jobs lately (for the workers' orchestrator, not the balancer).
    const reason =
      (await unreadyReason(deps.db)) ??
      (query.scope === 'jobs' ? await jobsUnreadyReason(deps.db, deps.config.jobsStaleSeconds) : undefined);
    if (!reason) return { status: 200, body: { status: 'ready' } };
    return {
      status: 503,
      body: { status: 'unavailable', reason },
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  },
  getMetrics: async ({ deps }) => {
    // Every process wires its metrics (src/process.ts); one without them has none to show.
    if (!deps.metrics) throw new AppError('not_found', 'Not found.');
    const { text, contentType } = await deps.metrics.exposition();
    return { status: 200, body: text, type: contentType };
  },
  getOpenApiYaml: async () => ({ status: 200, body: (await published()).openapiYaml, type: 'application/yaml' }),
  getOpenApiJson: async () => {
    parsedDocument ??= published().then(({ openapiJson }) => JSON.parse(openapiJson) as Record<string, unknown>);
    return { status: 200, body: await parsedDocument };
  },
  getDocs: async () => ({ status: 200, body: docsPage, type: 'text/html; charset=utf-8' }),
  getDocsAsset: async ({ path }) => ({
    status: 200,
    body: docsAsset(path.file),
    type: DOCS_ASSETS[path.file],
    headers: { 'Cache-Control': 'public, max-age=86400' },
  }),
} satisfies AreaHandlers<'service'>;
