/**
 * The baseline: bare Koa + @koa/router + a pg Pool running the same SQL as the API's customer
 * endpoints, with no authentication, validation or contract. `npm run bench` starts it. As the API's
 * (src/modules/customers/customers.statements.ts), its statements are named prepared statements and a create
 * writes the customer and its store event in one statement. Unlike the API, it counts the list's total on every
 * page (the API keeps totals until the table changes, and a later page's cursor carries its walk's total) unless
 * asked for `total=kept`: bench/README.md's table says which rows do the same database work.
 */
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const projectId = process.env.BENCH_PROJECT_ID!;
const COLUMNS = `id, email, first_name, last_name, phone, company, status, order_count, total_spent, tags, metadata,
  active_price_key, locale, tax_number, tax_number_type, created_at, updated_at`;
const router = new Router();
// `total=kept`: the list's total counted once and kept until this server creates a customer, as the API keeps its
// totals until the table changes (the bench's "both keep the total" row, where every write goes through here).
const keptTotals = new Map<string, number>();

router.get('/v1/customers/:id', async (ctx) => {
  const { rows } = await pool.query({
    name: 'baseline_customer_by_id',
    text: `SELECT ${COLUMNS} FROM customers WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL LIMIT 1`,
    values: [ctx.params.id, projectId],
  });
  if (!rows[0]) ctx.throw(404);
  ctx.body = { data: rows[0] };
});

router.get('/v1/customers', async (ctx) => {
  const search = typeof ctx.query.search === 'string' ? `%${ctx.query.search}%` : null;
  const status = typeof ctx.query.status === 'string' ? ctx.query.status : null;
  // A later page: the rows after (after_created, after_id) in the list's order (a keyset, as the API's cursor).
  const afterCreated = typeof ctx.query.after_created === 'string' ? ctx.query.after_created : null;
  const afterId = typeof ctx.query.after_id === 'string' ? ctx.query.after_id : null;
  const where = `project_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR first_name ILIKE $3 OR last_name ILIKE $3 OR email ILIKE $3)`;
  const totalKey = JSON.stringify([status, search]);
  const kept = ctx.query.total === 'kept' ? keptTotals.get(totalKey) : undefined;
  const [count, page] = await Promise.all([
    kept !== undefined
      ? { rows: [{ total: kept }] }
      : pool.query({
          name: 'baseline_customer_count',
          text: `SELECT count(*)::int AS total FROM customers WHERE ${where}`,
          values: [projectId, status, search],
        }),
    pool.query({
      name: 'baseline_customer_page',
      text: `SELECT ${COLUMNS} FROM customers WHERE ${where} AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
       ORDER BY created_at DESC, id DESC LIMIT 26`,
      values: [projectId, status, search, afterCreated, afterId],
    }),
  ]);
  if (ctx.query.total === 'kept' && kept === undefined) keptTotals.set(totalKey, count.rows[0].total);
  ctx.body = {
    data: page.rows.slice(0, 25),
    pagination: { cursor: null, has_more: page.rows.length > 25, total: count.rows[0].total },
  };
});

router.post('/v1/customers', koaBody(), async (ctx) => {
  const body = ctx.request.body as { email: string; first_name: string; last_name: string };
  const id = `cus_${randomBytes(13).toString('hex')}`;
  // One statement, as the API's create: the customer, and its store event from the inserted row.
  const { rows } = await pool.query({
    name: 'baseline_customer_insert_with_event',
    text: `WITH customer AS (
        INSERT INTO customers (id, project_id, email, email_normalized, first_name, last_name, sort_name, tags, metadata, updated_at)
        VALUES ($1, $2, $3, lower($3), $4, $5, lower($5) || chr(1) || lower($4), '{}', '{}', now()) RETURNING ${COLUMNS}
      ), event AS (
        INSERT INTO store_events (id, project_id, type, resource_type, resource_id, actor_type, actor_id, summary, metadata)
        SELECT $6, $2, 'customer.created', 'customer', id, 'api_key', 'key_baseline', 'created', '{}' FROM customer
      )
      SELECT * FROM customer`,
    values: [id, projectId, body.email, body.first_name, body.last_name, `sevt_${randomBytes(13).toString('hex')}`],
  });
  keptTotals.clear();
  ctx.status = 201;
  ctx.body = { data: rows[0] };
});

const app = new Koa();
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
