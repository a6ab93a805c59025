import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../src/db/embedded-postgres.js';
import { DURABLE, expectDurable } from '../../setup/durable-postgres.js';
import { exited, startMain, type Cleanups } from '../../setup/process.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'crash-test-platform-token-0123456789';
// How many answers to wait for before the kill: the burst is well under way, with requests in flight.
const ANSWERS_BEFORE_KILL = 60;
const CLIENTS = 8;

interface Sent {
  kind: 'customer' | 'product' | 'draft' | 'items' | 'company';
  key: string;
  path: string;
  body: unknown;
  /** The answer before the kill, or undefined when none came (in flight, or sent to a dead process). */
  answer?: { status: number; body: unknown };
}

type Json = { data?: { id?: string; [name: string]: unknown }; error?: { code: string; message: string } };

describe('crash safety (SIGKILL of the server during a burst of creates with Idempotency-Keys; PostgreSQL durable)', () => {
  test('after a restart every key replays its answer or runs once; no resource is duplicated or half-written', async () => {
    const pgDir = mkdtempSync(path.join(os.tmpdir(), 'crash-pg-'));
    // PostgreSQL of its own, durable as a deployment's (the test run's shared cluster is not).
    const database = await startEmbeddedPostgres({
      dir: pgDir,
      persistent: false,
      whenInUse: 'refuse',
      settings: DURABLE,
    });
    cleanups.push(async () => {
      await database.stop();
      rmSync(pgDir, { recursive: true, force: true });
    });
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crash-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      DATABASE_URL: database.url,
      DEMO_PROJECT: 'true',
      DATA_DIR: dataDir,
      PLATFORM_TOKEN,
      RESPONSE_CHECK: 'true',
    };
    const first = await startMain(env, cleanups);
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const projectId: string = demo.project_id;
    const headers = { Authorization: `Bearer ${demo.keys.secret_test.token}`, 'Content-Type': 'application/json' };
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    cleanups.push(() => sql.end().catch(() => {}));
    await expectDurable(sql);

    const locations = (
      await sql.query(
        'SELECT id FROM locations WHERE project_id = $1 AND deleted_at IS NULL AND is_active ORDER BY created_at',
        [projectId],
      )
    ).rows.map((r) => r.id as string);
    expect(locations.length).toBe(2);
    const stockBefore = await stockByVariant(sql, projectId);
    const variants = (
      await sql.query('SELECT id FROM variants WHERE project_id = $1 ORDER BY id LIMIT 10', [projectId])
    ).rows.map((r) => r.id as string);

    const post = async (baseUrl: string, url: string, body: unknown, key?: string) => {
      const response = await fetch(`${baseUrl}${url}`, {
        method: 'POST',
        headers: { ...headers, ...(key && { 'Idempotency-Key': key }) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      return {
        status: response.status,
        body: (await response.json()) as Json,
        replayed: response.headers.get('idempotent-replayed'),
      };
    };
    // The burst's requests: a request that fails once the process is killed is one it took down with it (the
    // client stops); any other failure, before the kill or not of the request itself, fails the test.
    let alive = true;
    class KilledInFlight extends Error {}
    const burstPost = (url: string, body: unknown, key?: string) =>
      post(first.baseUrl, url, body, key).catch((error: unknown) => {
        throw alive ? error : new KilledInFlight(String(error));
      });

    // The burst: each client creates, in turn, a customer, a product with two variants, a draft order and then its
    // line items (a second idempotent create on the draft, which recomputes its totals), and a company; and moves
    // all stock between the two locations. Every create carries a key of its own.
    const sent: Sent[] = [];
    let answered = 0;
    let transfers = 0;
    const client = async (worker: number) => {
      for (let n = 0; alive; n++) {
        const key = (kind: string) => `crash-${worker}-${n}-${kind}`;
        const steps: Array<() => Promise<void>> = [];
        const send = async (entry: Sent) => {
          sent.push(entry);
          const answer = await burstPost(entry.path, entry.body, entry.key);
          entry.answer = { status: answer.status, body: answer.body };
          answered++;
          return answer;
        };
        steps.push(async () => {
          await send({
            kind: 'customer',
            key: key('customer'),
            path: '/v1/customers',
            body: { email: `${key('customer')}@example.com`, first_name: 'Crash', last_name: key('customer') },
          });
        });
        steps.push(async () => {
          await send({
            kind: 'product',
            key: key('product'),
            path: '/v1/products',
            body: {
              title: key('product'),
              variants: [
                { title: 'Small', price: 1200 },
                { title: 'Large', price: 1500 },
              ],
            },
          });
        });
        steps.push(async () => {
          const draft = await send({
            kind: 'draft',
            key: key('draft'),
            path: '/v1/draft-orders',
            body: { currency: 'USD', customer_email: 'buyer@example.com', notes: key('draft') },
          });
          if (draft.status !== 201) return;
          const items = [
            { variant_id: variants[(worker + n) % variants.length], quantity: 2 },
            { title: 'Gift wrap', unit_price: 350, quantity: 1 },
          ];
          await send({
            kind: 'items',
            key: key('items'),
            path: `/v1/draft-orders/${draft.body.data!.id}/items`,
            body: { items },
          });
        });
        steps.push(async () => {
          await send({ kind: 'company', key: key('company'), path: '/v1/companies', body: { name: key('company') } });
        });
        // Two of the clients move stock too (a transfer locks every level of both locations, so fewer of them).
        if (worker < 2)
          steps.push(async () => {
            const [from, to] = (worker + n) % 2 === 0 ? locations : [...locations].reverse();
            const moved = await burstPost(`/v1/locations/${from}/transfer`, { destination_location_id: to });
            expect(moved.status).toBe(200);
            transfers++;
          });
        for (const step of steps) {
          if (!alive) return;
          // Only a request the kill took down ends the client quietly; a failed expect is the test's failure.
          const killed = await step().then(
            () => false,
            (error: unknown) => {
              if (error instanceof KilledInFlight) return true;
              throw error;
            },
          );
          if (killed) return;
        }
      }
    };
    let failed: { error: unknown } | undefined;
    const burst = Array.from({ length: CLIENTS }, (_, worker) =>
      client(worker).catch((error: unknown) => {
        failed ??= { error };
      }),
    );
    expect(
      await eventually(() => failed !== undefined || (answered >= ANSWERS_BEFORE_KILL && transfers >= 2), {
        timeoutMs: 90_000,
        intervalMs: 5,
      }),
    ).toBe(true);
    first.child.kill('SIGKILL');
    alive = false;
    await exited(first.child);
    await Promise.all(burst);
    if (failed) throw failed.error;
    const unanswered = sent.filter((entry) => !entry.answer);
    expect(unanswered.length).toBeGreaterThan(0); // the kill caught requests in flight
    expect(transfers).toBeGreaterThan(0);

    // Restart on the same database and replay every key.
    const second = await startMain(env, cleanups);
    cleanups.push(async () => {
      if (second.child.exitCode === null && second.child.signalCode === null) {
        second.child.kill('SIGTERM');
        await exited(second.child);
      }
    });
    const finals = new Map<string, { status: number; body: Json }>();
    let committedBeforeKill = 0;
    for (const entry of sent) {
      let replay = await post(second.baseUrl, entry.path, entry.body, entry.key);
      if (entry.answer) {
        // Answered before the kill: the replay is that answer.
        expect({ key: entry.key, status: replay.status, body: replay.body, replayed: replay.replayed }).toEqual({
          key: entry.key,
          status: entry.answer.status,
          body: entry.answer.body,
          replayed: 'true',
        });
      } else {
        // In flight at the kill: it either committed (the replay is its answer) or left nothing (it runs now).
        // A 409 "still being processed" would be a key that outlived its process; it must resolve on retry.
        for (
          const deadline = Date.now() + 30_000;
          replay.status === 409 &&
          replay.body.error?.message.includes('still being processed') &&
          Date.now() < deadline;
        ) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          replay = await post(second.baseUrl, entry.path, entry.body, entry.key);
        }
        expect({ key: entry.key, status: replay.status }).toEqual({ key: entry.key, status: 201 });
        if (replay.replayed === 'true') committedBeforeKill++;
        const again = await post(second.baseUrl, entry.path, entry.body, entry.key);
        expect({ key: entry.key, status: again.status, body: again.body, replayed: again.replayed }).toEqual({
          key: entry.key,
          status: 201,
          body: replay.body,
          replayed: 'true',
        });
      }
      finals.set(entry.key, { status: replay.status, body: replay.body });
    }

    // Each resource exists exactly once, and is the one its key answers with.
    const once = async (query: string, entry: Sent, value: string) => {
      const rows = (await sql.query(query, [projectId, value])).rows.map((r) => r.id as string);
      expect({ key: entry.key, ids: rows }).toEqual({ key: entry.key, ids: [finals.get(entry.key)!.body.data!.id] });
    };
    for (const entry of sent) {
      const body = entry.body as Record<string, string>;
      if (entry.kind === 'customer')
        await once('SELECT id FROM customers WHERE project_id = $1 AND last_name = $2', entry, body.last_name);
      if (entry.kind === 'product')
        await once('SELECT id FROM products WHERE project_id = $1 AND title = $2', entry, body.title);
      if (entry.kind === 'draft')
        await once('SELECT id FROM draft_orders WHERE project_id = $1 AND notes = $2', entry, body.notes);
      if (entry.kind === 'company')
        await once('SELECT id FROM companies WHERE project_id = $1 AND name = $2', entry, body.name);
      if (entry.kind === 'items') {
        const draftId = entry.path.split('/')[3];
        const items = await sql.query('SELECT count(*)::int AS n FROM draft_line_items WHERE draft_order_id = $1', [
          draftId,
        ]);
        expect({ key: entry.key, items: items.rows[0].n }).toEqual({ key: entry.key, items: 2 });
      }
    }

    // Nothing half-written. Drafts: totals agree with their line items (no address, so no tax).
    const drafts = await sql.query(
      `SELECT d.id, d.subtotal::bigint AS subtotal, d.total::bigint AS total, d.tax::bigint AS tax, d.shipping_cost::bigint AS shipping, d.discount::bigint AS discount,
              COALESCE(SUM(i.quantity * i.unit_price), 0)::bigint AS items_sum
       FROM draft_orders d LEFT JOIN draft_line_items i ON i.draft_order_id = d.id
       WHERE d.project_id = $1 GROUP BY d.id`,
      [projectId],
    );
    const badDrafts = drafts.rows.filter(
      (d) =>
        d.subtotal !== d.items_sum ||
        BigInt(d.total) !== BigInt(d.subtotal) + BigInt(d.shipping) - BigInt(d.discount) + BigInt(d.tax),
    );
    expect(badDrafts).toEqual([]);
    // Products: each has its variants and the price derived from them.
    const products = await sql.query(
      `SELECT p.id, p.price, MIN(v.price) AS lowest, COUNT(v.id)::int AS variants FROM products p LEFT JOIN variants v ON v.product_id = p.id
       WHERE p.project_id = $1 AND p.title LIKE 'crash-%' GROUP BY p.id`,
      [projectId],
    );
    expect(products.rows.filter((p) => p.variants !== 2 || p.price !== p.lowest)).toEqual([]);
    // Inventory: transfers moved stock without creating or losing any; each variant's total is the sum of its
    // levels; each level is the sum of its adjustments.
    expect(await stockByVariant(sql, projectId)).toEqual(stockBefore);
    const totals = await sql.query(
      `SELECT v.id, v.inventory_quantity, COALESCE(SUM(l.available), 0)::int AS levels FROM variants v LEFT JOIN inventory_levels l ON l.variant_id = v.id
       WHERE v.project_id = $1 GROUP BY v.id HAVING v.inventory_quantity <> COALESCE(SUM(l.available), 0)`,
      [projectId],
    );
    expect(totals.rows).toEqual([]);
    const adjustments = await sql.query(
      `SELECT a.variant_id, a.location_id, a.deltas, COALESCE(l.available, 0) AS available
       FROM (SELECT variant_id, location_id, SUM(delta)::int AS deltas FROM inventory_adjustments WHERE project_id = $1 GROUP BY variant_id, location_id) a
       LEFT JOIN inventory_levels l ON l.variant_id = a.variant_id AND l.location_id = a.location_id
       WHERE a.deltas <> COALESCE(l.available, 0)`,
      [projectId],
    );
    expect(adjustments.rows).toEqual([]);

    console.log(
      `crash safety: ${sent.length} keyed creates (${sent.length - unanswered.length} answered before the kill, ${unanswered.length} in flight), ` +
        `${transfers} transfers; in flight: ${unanswered.map((e) => e.kind).join(', ')}, of which ${committedBeforeKill} had committed (replayed) and the rest ran on replay`,
    );
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  }, 240_000);
});

/** Each variant's stock over all locations. */
async function stockByVariant(sql: pg.Client, projectId: string): Promise<Record<string, number>> {
  const { rows } = await sql.query(
    'SELECT variant_id, SUM(available)::int AS n FROM inventory_levels WHERE project_id = $1 GROUP BY variant_id',
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [r.variant_id, r.n]));
}
