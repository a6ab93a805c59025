/**
 * The `checkout complete` scenario of `npm run bench`: a shopper's whole journey with the publishable key, one
 * request per step (create, two lines, address, the rates, a rate chosen, completion with the `test` provider's
 * success token), run by a number of clients at once, each going through journeys one after another. Measured:
 * journeys a second, and the latency of each step and of the whole journey (p50, p99). Steps run in this process
 * (fetch with keep-alive), not through autocannon, so each answer's id and secret feed the next step.
 *
 * Variants of the journey (`CheckoutVariant`) are measured in alternating rounds and compared with the first: the
 * plain journey, and one with a discount code and an automatic promotion applied (DISCOUNTED_CHECKOUT; the aim:
 * within 15 % of the plain journey's journeys a second).
 */

/** A journey's state as its steps fill it in. */
export interface Journey {
  /** The journey's number (from 0), to pick its variants. */
  n: number;
  id?: string;
  secret?: string;
  rateId?: string;
}

/** One step: one request, made from the journey's state; `read` takes what the next steps need from the answer. */
export interface JourneyStep {
  name: string;
  request: (journey: Journey) => { method: string; path: string; body?: unknown; headers?: Record<string, string> };
  /** The status a step must answer (anything else fails the journey). */
  status: number;
  read?: (journey: Journey, answer: unknown) => void;
}

/** A kind of journey: its name in the table, what it needs made first (through the API), and its steps. */
export interface CheckoutVariant {
  name: string;
  prepare: (ctx: CheckoutContext) => Promise<void>;
  steps: (ctx: CheckoutContext) => JourneyStep[];
}

export interface CheckoutContext {
  url: string;
  secret: string;
  publishable: string;
  /** Stocked variant ids the journeys buy (two each, taken in turn). */
  variantIds: string[];
}

/** The country of the journeys' address and of the zone made for them (a zone of its own: no other scenario's). */
const COUNTRY = 'DE';

const ADDRESS = {
  first_name: 'Bench',
  last_name: 'Shopper',
  line1: 'Friedrichstrasse 68',
  city: 'Berlin',
  postal_code: '10117',
  country: COUNTRY,
};

async function call(ctx: CheckoutContext, method: string, pathname: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${ctx.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${ctx.secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The secret that reaches the journey's checkout. */
const secretOf = (journey: Journey) => ({ 'x-checkout-secret': journey.secret! });
const data = (answer: unknown) => (answer as { data: Record<string, unknown> }).data;

/** The step adding one unit of each of the two variants `pick` names for the journey. */
const twoLines = (pick: (journey: Journey) => [string, string]): JourneyStep => ({
  name: 'two lines',
  status: 201,
  request: (j) => ({
    method: 'POST',
    path: `/v1/checkouts/${j.id}/lines`,
    headers: secretOf(j),
    body: { lines: pick(j).map((variant_id) => ({ variant_id, quantity: 1 })) },
  }),
});

/** The plain journey's steps: create, two lines, address, rates, a rate chosen, completion paid with the test token. */
export function plainSteps(ctx: CheckoutContext): JourneyStep[] {
  const variants = ctx.variantIds;
  return [
    {
      name: 'create',
      status: 201,
      request: (j) => ({
        method: 'POST',
        path: '/v1/checkouts',
        body: { currency: 'USD', email: `bench-shopper-${j.n}@example.com` },
      }),
      read: (j, answer) => {
        j.id = data(answer).id as string;
        j.secret = (answer as { client_secret: string }).client_secret;
      },
    },
    twoLines((j) => [variants[(j.n * 2) % variants.length], variants[(j.n * 2 + 1) % variants.length]]),
    {
      name: 'address',
      status: 200,
      request: (j) => ({
        method: 'PATCH',
        path: `/v1/checkouts/${j.id}`,
        headers: secretOf(j),
        body: { shipping_address: ADDRESS },
      }),
    },
    {
      name: 'rates',
      status: 200,
      request: (j) => ({ method: 'GET', path: `/v1/checkouts/${j.id}/shipping-rates`, headers: secretOf(j) }),
      read: (j, answer) => {
        const rates = (answer as { data: Array<{ id: string; name: string }> }).data;
        j.rateId = rates.find((rate) => rate.name === 'Standard')?.id;
      },
    },
    {
      name: 'rate chosen',
      status: 200,
      request: (j) => ({
        method: 'PATCH',
        path: `/v1/checkouts/${j.id}`,
        headers: secretOf(j),
        body: { shipping_rate_id: j.rateId },
      }),
    },
    {
      name: 'complete',
      status: 201,
      request: (j) => ({
        method: 'POST',
        path: `/v1/checkouts/${j.id}/complete`,
        headers: { ...secretOf(j), 'idempotency-key': `bench-${j.id}` },
        body: { payment: { token: 'tok_test_success' } },
      }),
    },
  ];
}

/** The journey without discounts: a zone for the address's country with a Standard and an Express rate. */
export const PLAIN_CHECKOUT: CheckoutVariant = {
  name: 'checkout complete',
  prepare: async (ctx) => {
    const zone = data(await call(ctx, 'POST', '/v1/shipping/zones', { name: 'Bench Europe', countries: [COUNTRY] }));
    for (const rate of [
      { name: 'Standard', price: 590, currency: 'USD', min_delivery_days: 3, max_delivery_days: 5 },
      { name: 'Express', price: 1490, currency: 'USD', min_delivery_days: 1, max_delivery_days: 2 },
    ])
      await call(ctx, 'POST', `/v1/shipping/zones/${zone.id as string}/rates`, rate);
  },
  steps: plainSteps,
};

/** The code the discounted journeys apply, and the promotion's product: its variants, one bought per journey. */
const BENCH_CODE = 'BENCH10';
const promoVariants: string[] = [];
/** Variants of the promotion's product: enough that concurrent journeys seldom lock the same one. */
const PROMO_VARIANTS = 100;

/**
 * A code of 10 % (combinable) and an automatic promotion of 5 % off the order (combinable, priority 1) whenever the
 * basket holds the promotion's product (`conditions.product_ids`), a product of its own with PROMO_VARIANTS
 * variants stocked for any number of journeys. Plain journeys never buy it, so the promotion is live in the store
 * while they run (they read that it does not apply to them) but takes nothing off them.
 */
async function preparePromotion(ctx: CheckoutContext): Promise<void> {
  const locations = data(await call(ctx, 'GET', '/v1/locations?limit=100')) as unknown as Array<{
    id: string;
    is_default: boolean;
  }>;
  const location = locations.find((l) => l.is_default)!;
  const product = data(
    await call(ctx, 'POST', '/v1/products', {
      title: 'Bench promotion socks',
      status: 'active',
      variants: Array.from({ length: PROMO_VARIANTS }, (_, i) => ({ title: `Size ${i}`, price: 1500 })),
    }),
  );
  promoVariants.length = 0;
  for (const variant of product.variants as Array<{ id: string }>) {
    promoVariants.push(variant.id);
    await call(ctx, 'PUT', '/v1/inventory-levels', {
      variant_id: variant.id,
      location_id: location.id,
      available: 1_000_000,
    });
  }
  await call(ctx, 'POST', '/v1/discounts', {
    code: BENCH_CODE,
    title: '10 % off (bench)',
    type: 'percentage',
    value: 10,
    combinable: true,
  });
  await call(ctx, 'POST', '/v1/promotions', {
    title: '5 % off with socks (bench)',
    type: 'percentage',
    value: 5,
    combinable: true,
    priority: 1,
    conditions: { product_ids: [product.id] },
  });
}

/**
 * A discounted journey: as the plain one, but its two lines are one of the shared variants and one of the
 * promotion's product (so the promotion applies), and the code is sent with the checkout's creation
 * (`discount_codes`, as a storefront that got it from a link; six requests, as the plain journey) or applied
 * after the lines (`own request`: one request more, as a shopper who types it); every later step prices both
 * reductions again, and the completion counts the code's use.
 */
export function discountedSteps(ctx: CheckoutContext, codeSent: 'at creation' | 'own request'): JourneyStep[] {
  const [create, , ...rest] = plainSteps(ctx);
  const variants = ctx.variantIds;
  const lines = twoLines((j) => [variants[(j.n * 2) % variants.length], promoVariants[j.n % promoVariants.length]]);
  // A bench whose journeys lost a reduction would measure something else: stop at the first one.
  const bothApplied = (_j: Journey, answer: unknown) => {
    const applied = (data(answer).discount_applications as Array<{ source: string }>).map((a) => a.source);
    if (applied.join() !== 'promotion,code') throw new Error(`bench: reductions applied ${applied.join()}`);
  };
  if (codeSent === 'at creation') {
    return [
      {
        ...create,
        request: (j) => {
          const plain = create.request(j);
          return { ...plain, body: { ...(plain.body as object), discount_codes: [BENCH_CODE.toLowerCase()] } };
        },
      },
      { ...lines, read: bothApplied },
      ...rest,
    ];
  }
  return [
    create,
    lines,
    {
      name: 'code applied',
      status: 200,
      request: (j) => ({
        method: 'POST',
        path: `/v1/checkouts/${j.id}/discount-codes`,
        headers: secretOf(j),
        body: { code: BENCH_CODE.toLowerCase() },
      }),
      read: bothApplied,
    },
    ...rest,
  ];
}

/**
 * The journey with one discount code (sent with the checkout's creation) and one automatic promotion applied: the
 * promotions issue's aim, within 15 % of the plain journey, which has as many requests.
 */
export const DISCOUNTED_CHECKOUT: CheckoutVariant = {
  name: 'checkout with a code and a promotion',
  prepare: preparePromotion,
  steps: (ctx) => discountedSteps(ctx, 'at creation'),
};

/** The same with the code applied as a request of its own (`applyCheckoutDiscountCode`): seven requests. */
export const CODE_TYPED_CHECKOUT: CheckoutVariant = {
  name: 'checkout with a code typed and a promotion',
  prepare: async () => {},
  steps: (ctx) => discountedSteps(ctx, 'own request'),
};

/** The journeys `npm run bench` measures; the first is the one the others are compared with. */
export const CHECKOUT_VARIANTS: CheckoutVariant[] = [PLAIN_CHECKOUT, DISCOUNTED_CHECKOUT, CODE_TYPED_CHECKOUT];

/** Latencies of one round: per step and per whole journey (ms), the journeys done and failed, the seconds taken. */
export interface JourneyRound {
  steps: Map<string, number[]>;
  journeys: number[];
  failed: number;
  firstFailure?: string;
  seconds: number;
}

/**
 * Runs `count` journeys of `steps` with `clients` at once (each client one journey after another), numbered from
 * `first`; a step answering another status than its own ends its journey, counted as failed.
 */
export async function runJourneys(
  ctx: CheckoutContext,
  steps: JourneyStep[],
  count: number,
  clients: number,
  first = 0,
): Promise<JourneyRound> {
  const round: JourneyRound = { steps: new Map(steps.map((s) => [s.name, []])), journeys: [], failed: 0, seconds: 0 };
  let next = 0;
  const started = performance.now();
  const journey = async (n: number) => {
    const state: Journey = { n };
    const began = performance.now();
    for (const step of steps) {
      const { method, path, body, headers } = step.request(state);
      const sent = performance.now();
      const response = await fetch(`${ctx.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ctx.publishable}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      round.steps.get(step.name)!.push(performance.now() - sent);
      if (response.status !== step.status) {
        round.failed++;
        round.firstFailure ??= `${step.name}: ${response.status} ${text.slice(0, 300)}`;
        return;
      }
      step.read?.(state, JSON.parse(text));
    }
    round.journeys.push(performance.now() - began);
  };
  await Promise.all(
    Array.from({ length: Math.min(clients, count) }, async () => {
      while (next < count) await journey(first + next++);
    }),
  );
  round.seconds = (performance.now() - started) / 1000;
  return round;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const ms = (value: number) => Math.round(value * 10) / 10;

/** A round's figures: journeys a second, the journey's p50 and p99 (ms) and its failures. */
export function roundFigures(round: JourneyRound): { rps: number; p50: number; p99: number; errors: number } {
  return {
    rps: round.journeys.length / round.seconds,
    p50: ms(percentile(round.journeys, 50)),
    p99: ms(percentile(round.journeys, 99)),
    errors: round.failed,
  };
}

/** The table of p50 and p99 per step and for the whole journey, over every round of each variant measured. */
export function stepTable(measured: Array<{ variant: CheckoutVariant; rounds: JourneyRound[] }>): string[] {
  const names = [...new Set(measured.flatMap(({ rounds }) => rounds.flatMap((r) => [...r.steps.keys()])))];
  const cells = (values: number[]) => `${ms(percentile(values, 50))} | ${ms(percentile(values, 99))}`;
  const all = (rounds: JourneyRound[], step?: string) =>
    rounds.flatMap((r) => (step === undefined ? r.journeys : (r.steps.get(step) ?? [])));
  return [
    `| step | ${measured.map(({ variant }) => `${variant.name} p50 ms | p99 ms`).join(' | ')} |`,
    `|---|${measured.map(() => '---:|---:').join('|')}|`,
    ...names.map(
      (step) =>
        `| ${step} | ${measured.map(({ rounds }) => (all(rounds, step).length > 0 ? cells(all(rounds, step)) : '- | -')).join(' | ')} |`,
    ),
    `| **whole journey** | ${measured.map(({ rounds }) => cells(all(rounds))).join(' | ')} |`,
  ];
}
