/**
 * The baseline: bare Koa + @koa/router + a pg Pool running the same SQL as the API's customer
 * endpoints, with no authentication, validation, contract or event log. `npm run bench` starts it.
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

router.get('/v1/customers/:id', async (ctx) => {
  const { rows } = await pool.query(
    `SELECT ${COLUMNS} FROM customers WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL LIMIT 1`,
    [ctx.params.id, projectId],
  );
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
  const [count, page] = await Promise.all([
    pool.query(`SELECT count(*)::int AS total FROM customers WHERE ${where}`, [projectId, status, search]),
    pool.query(
      `SELECT ${COLUMNS} FROM customers WHERE ${where} AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
       ORDER BY created_at DESC, id DESC LIMIT 26`,
      [projectId, status, search, afterCreated, afterId],
    ),
  ]);
  ctx.body = {
    data: page.rows.slice(0, 25),
    pagination: { cursor: null, has_more: page.rows.length > 25, total: count.rows[0].total },
  };
});

router.post('/v1/customers', koaBody(), async (ctx) => {
  const body = ctx.request.body as { email: string; first_name: string; last_name: string };
  const id = `cus_${randomBytes(13).toString('hex')}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `INSERT INTO customers (id, project_id, email, email_normalized, first_name, last_name, sort_name, tags, metadata, updated_at)
       VALUES ($1, $2, $3, lower($3), $4, $5, lower($5) || chr(1) || lower($4), '{}', '{}', now()) RETURNING ${COLUMNS}`,
      [id, projectId, body.email, body.first_name, body.last_name],
    );
    await client.query(
      `INSERT INTO store_events (id, project_id, type, resource_type, resource_id, actor_type, actor_id, summary, metadata)
       VALUES ($1, $2, 'customer.created', 'customer', $3, 'api_key', 'key_baseline', 'created', '{}')`,
      [`sevt_${randomBytes(13).toString('hex')}`, projectId, id],
    );
    await client.query('COMMIT');
    ctx.status = 201;
    ctx.body = { data: rows[0] };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
});

const app = new Koa();
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
