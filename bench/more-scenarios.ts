/**
 * The scenarios of `npm run bench` beyond the customer endpoints, measured on the API alone (no bare
 * baseline makes sense for them): the product list, the storefront rate lookup and draft-order completion, each
 * draft on variants of its own (no two completions compete for stock) and contended (every draft on a few shared
 * variants, as in a flash sale). Their data is made through the API (zones, rates, stock, drafts with items) or,
 * for the catalog, by seedCatalog.
 */
import type autocannon from 'autocannon';

export interface ApiScenario {
  name: string;
  /**
   * Prepares what the scenario needs (through the API); returns the request and the key to send, and for a scenario
   * that consumes what it requests, the requests to measure (`amount`) after `warmUp` requests not measured.
   */
  prepare: () => Promise<{ request: autocannon.Request; token: string; amount?: number; warmUp?: number }>;
}

interface Context {
  url: string;
  secret: string;
  publishable: string;
  /** Variant ids of the seeded catalog. */
  variantIds: string[];
  /** Completions measured (each completes its own draft). */
  completions: number;
  /** Concurrent connections (clients) of the measurements, for the contended scenario's name (default 20). */
  connections?: number;
  log: (line: string) => void;
}

/** The variants every draft of the contended completion scenario draws its two line items from. */
export const SHARED_VARIANTS = 10;

/**
 * Completions before the measured ones, as every timed scenario has 2 s of warm-up: the server's first completions
 * compile its code paths and prepare its statements on each pool connection (in a cold round of 1,000, the 12
 * slowest were all among the first 50).
 */
export const COMPLETION_WARM_UP = 200;

async function call(ctx: Context, method: string, pathname: string, body?: unknown): Promise<{ data: { id: string } }> {
  const response = await fetch(`${ctx.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${ctx.secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { data: { id: string } };
}

/** Runs `task` over `items` with `concurrency` at a time. */
async function inParallel<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** The product list, rate lookup and draft-order completion scenarios over `ctx`'s server and keys. */
export function moreScenarios(ctx: Context): ApiScenario[] {
  return [
    {
      name: 'product list (limit 25, total)',
      prepare: async () => ({ request: { method: 'GET', path: '/v1/products?limit=25' }, token: ctx.secret }),
    },
    {
      name: 'rate lookup (storefront)',
      prepare: async () => {
        const zone = await call(ctx, 'POST', '/v1/shipping/zones', { name: 'North America', countries: ['US', 'CA'] });
        for (const rate of [
          { name: 'Standard', price: 990, currency: 'USD', min_delivery_days: 3, max_delivery_days: 5 },
          { name: 'Express', price: 1990, currency: 'USD', min_delivery_days: 1, max_delivery_days: 2 },
          { name: 'Free shipping', price: 0, currency: 'USD', min_order_subtotal: 5000 },
        ])
          await call(ctx, 'POST', `/v1/shipping/zones/${zone.data.id}/rates`, rate);
        let n = 0;
        return {
          token: ctx.publishable,
          request: {
            method: 'POST',
            path: '/v1/shipping/rates',
            // Subtotals never repeat, so no answer comes from a cache.
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                country: 'US',
                subtotal: 1000 + (++n % 100_000),
                currency: 'USD',
                items: [{ weight_grams: 500, quantity: 2 }],
              }),
            }),
          },
        };
      },
    },
    {
      // Named as the completion benches (completion-ab, completion-waits, profile) find it.
      name: 'draft-order complete',
      prepare: async () => {
        const drafts = await makeDrafts(ctx, (i) => [
          ctx.variantIds[(i * 2) % ctx.variantIds.length],
          ctx.variantIds[(i * 2 + 1) % ctx.variantIds.length],
        ]);
        return completing(ctx, drafts);
      },
    },
    {
      // The flash sale: every completion locks two of a few variants, so completions wait for each other's locks.
      name: `draft-order complete, contended (${ctx.connections ?? 20} clients, every draft on 2 of ${SHARED_VARIANTS} shared variants)`,
      prepare: async () => {
        const shared = ctx.variantIds.slice(-SHARED_VARIANTS);
        const locations = await call(ctx, 'GET', '/v1/locations?limit=100');
        const location = (locations.data as unknown as Array<{ id: string; is_default: boolean }>).find(
          (l) => l.is_default,
        )!;
        // Stock for every completion (a variant that runs out answers 409 and would end the measurement early).
        for (const variant_id of shared)
          await call(ctx, 'PUT', '/v1/inventory-levels', {
            variant_id,
            location_id: location.id,
            available: 2 * (ctx.completions + COMPLETION_WARM_UP),
          });
        const drafts = await makeDrafts(ctx, (i) => [shared[i % shared.length], shared[(i + 1) % shared.length]]);
        return completing(ctx, drafts);
      },
    },
  ];
}

/** COMPLETION_WARM_UP + ctx.completions drafts made through the API, each with one unit of each of `variantsOf(i)`. */
async function makeDrafts(ctx: Context, variantsOf: (i: number) => string[]): Promise<string[]> {
  const total = ctx.completions + COMPLETION_WARM_UP;
  ctx.log(`  creating ${total} draft orders with two line items each through the API...`);
  const drafts: string[] = [];
  await inParallel(
    Array.from({ length: total }, (_, i) => i),
    8,
    async (i) => {
      const draft = await call(ctx, 'POST', '/v1/draft-orders', {
        currency: 'USD',
        customer_email: `bench-buyer-${i}@example.com`,
      });
      await call(ctx, 'POST', `/v1/draft-orders/${draft.data.id}/items`, {
        items: variantsOf(i).map((variant_id) => ({ variant_id, quantity: 1 })),
      });
      drafts.push(draft.data.id);
    },
  );
  return drafts;
}

/** The completion scenario over `drafts`: one request completes the next draft. */
function completing(ctx: Context, drafts: string[]) {
  let next = 0;
  return {
    token: ctx.secret,
    amount: ctx.completions,
    warmUp: COMPLETION_WARM_UP,
    request: {
      method: 'POST' as const,
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        path: `/v1/draft-orders/${drafts[next++ % drafts.length]}/complete`,
      }),
    },
  };
}
