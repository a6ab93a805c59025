import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../../src/db/migrate.js';
import { createTestDatabase } from '../../setup/database.js';

// The migration that gives order line items their ids, run over rows written before it.
const MIGRATION = '20261129095044_order_returns';

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

describe(MIGRATION, () => {
  test('backfills a distinct oli_ id on every existing order line, and names it in fulfilment and refund lines', async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      const before = mkdtempSync(path.join(os.tmpdir(), 'before-line-ids-'));
      dirs.push(before);
      for (const { name } of readMigrations().filter((m) => m.name < MIGRATION)) {
        cpSync(path.join(MIGRATIONS_DIR, name), path.join(before, name), { recursive: true });
      }
      await migrate(database.url, before);
      await client.query(
        `INSERT INTO projects (id, name, extensions, tax, exchange_rates, signing_secret, updated_at)
         VALUES ('proj_1', 'Old shop', '{}', '{}', '{}', 'secret', now())`,
      );
      const line = (title: string) => ({
        variant_id: null,
        product_id: null,
        title,
        variant_title: '',
        sku: null,
        quantity: 2,
        unit_price: 100,
        total: 200,
      });
      for (const id of ['ord_1', 'ord_2']) {
        await client.query(
          `INSERT INTO orders (id, project_id, order_number, email, currency, line_items, subtotal, tax, shipping_cost,
             discount, total, payment_terms, updated_at)
           VALUES ($1, 'proj_1', $2, 'old@example.com', 'EUR', $3, 400, 0, 0, 0, 400, 'due_on_receipt', now())`,
          [id, id === 'ord_1' ? 1001 : 1002, JSON.stringify([line('First'), line('Second')])],
        );
      }
      await client.query(
        `INSERT INTO fulfillments (id, project_id, order_id, location_id, line_items, notify_customer, updated_at)
         VALUES ('ful_1', 'proj_1', 'ord_1', 'loc_1', '[{"line_item_index": 1, "quantity": 2}]', false, now())`,
      );
      await client.query(
        `INSERT INTO refunds (id, project_id, order_id, amount, line_items)
         VALUES ('rfnd_1', 'proj_1', 'ord_1', 0, '[{"line_item_index": 1, "quantity": 1, "location_id": "loc_1"}]')`,
      );

      expect(await migrate(database.url)).toContain(MIGRATION);

      const orders = (await client.query('SELECT id, line_items FROM orders ORDER BY id')).rows;
      const ids = orders.flatMap((order) => order.line_items.map((item: { id: string }) => item.id));
      expect(ids).toHaveLength(4);
      for (const id of ids) expect(id).toMatch(/^oli_[0-9a-z]{26}$/);
      expect(new Set(ids).size).toBe(4);
      expect(orders[0].line_items.map((item: { title: string }) => item.title)).toEqual(['First', 'Second']);
      const second = orders[0].line_items[1].id;
      const [fulfilment] = (await client.query("SELECT line_items FROM fulfillments WHERE id = 'ful_1'")).rows;
      expect(fulfilment.line_items).toEqual([{ line_item_id: second, line_item_index: 1, quantity: 2 }]);
      const [refund] = (await client.query("SELECT line_items FROM refunds WHERE id = 'rfnd_1'")).rows;
      expect(refund.line_items).toEqual([
        { line_item_id: second, line_item_index: 1, quantity: 1, location_id: 'loc_1' },
      ]);
      const [returns] = (await client.query("SELECT returns FROM orders WHERE id = 'ord_2'")).rows;
      expect(returns.returns).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
