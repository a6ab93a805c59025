import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { exited, root, startMain, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const run = promisify(execFile);
const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The ```sh block after `<!-- readme-test: <name> -->` in README.md. */
function readmeBlock(name: string): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- readme-test: ${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no block ${name}`);
  return match[1];
}

describe("README's first requests, storefront requests, conditional writes, after-the-order requests, storefront walkthrough, suppliers and menus", () => {
  test("work as printed against npm start (only the port and DATA_DIR are this test run's)", async () => {
    const dataDir = await initialisedDataDir('readme-', cleanups);
    const server = await startMain({ DATA_DIR: dataDir }, cleanups);
    cleanups.push(async () => {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
    });
    // The blocks read the API's port from PORT, as npm start does: this run's port, nothing replaced in them.
    const shell = { PATH: process.env.PATH!, HOME: process.env.HOME!, PORT: new URL(server.baseUrl).port };
    for (const name of [
      'first-requests',
      'storefront',
      'conditional-writes',
      'after-the-order',
      'return-to-refund',
      'storefront-walkthrough',
      'suppliers-and-menus',
    ])
      expect(readmeBlock(name)).not.toMatch(/127\.0\.0\.1:\d/);
    const script = readmeBlock('first-requests').replaceAll('./.data/', `${dataDir}/`);
    // One answer per line: curl -s prints bodies without a trailing newline.
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${script}`], {
      cwd: root,
      env: shell,
    });
    const [health, products, unknown, ada] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(health).toEqual({ status: 'ok' });
    expect(products.data).toHaveLength(2);
    for (const product of products.data) expect(Object.keys(product).sort()).toEqual(['id', 'title']);
    expect(unknown.error).toMatchObject({ code: 'invalid_request', field: 'q' });
    expect(ada.data).toEqual([{ id: expect.stringMatching(/^cus_/), email: 'ada.lovelace@example.com' }]);

    // The storefront block: search, rate lookups for Germany and the US, register and /v1/me, with the
    // publishable key in X-API-Key only.
    const storefront = readmeBlock('storefront').replaceAll('./.data/', `${dataDir}/`);
    const shop = await run('bash', ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${storefront}`], {
      cwd: root,
      env: shell,
    });
    const [search, de, us, me, forgot, outbox] = shop.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(search.data.products.data.length).toBeGreaterThan(0);
    expect(de.data.map((rate: { name: string; price: number }) => [rate.name, rate.price])).toEqual([
      ['Standard', 490],
      ['Express', 1290],
    ]);
    expect(us.data[0]).toMatchObject({ name: 'Free standard shipping', price: 0, currency: 'USD' });
    expect(me.data).toMatchObject({ email: 'jane@example.com', first_name: 'Jane' });
    expect(forgot).toEqual({
      data: { message: 'If an account exists for this email, we have sent a link to reset its password.' },
    });
    // The demo project's e-mails in one command: the reset e-mail just sent, first.
    expect(outbox.data[0]).toMatchObject({ to: ['jane@example.com'], template: 'password_reset' });
    expect(outbox.data[0].data.token).toEqual(expect.any(String));

    // Conditional writes: two editors with one ETag; the first saves, the second is refused and changes nothing.
    const conditional = readmeBlock('conditional-writes').replaceAll('./.data/', `${dataDir}/`);
    const editors = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${conditional}`],
      { cwd: root, env: shell },
    );
    const [saved, stale] = editors.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(saved.data).toMatchObject({ email: 'ada.lovelace@example.com', phone: '+44 20 7946 0000' });
    expect(stale.error).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });

    // After the order: fulfil and cancel with restock, pay and refund in two parts, a sent draft's reservation.
    const afterOrder = readmeBlock('after-the-order').replaceAll('./.data/', `${dataDir}/`);
    const lifecycle = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${afterOrder}`],
      { cwd: root, env: shell },
    );
    const [
      fulfilment,
      cancelled,
      levelsB,
      spentBefore,
      paid,
      firstRefund,
      secondRefund,
      refunded,
      spentAfter,
      levelsC,
      refused,
    ]: any[] = lifecycle.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(fulfilment.data).toMatchObject({ status: 'success', notify_customer: true });
    expect(cancelled.data).toMatchObject({ status: 'cancelled', fulfillment_status: 'partially_fulfilled' });
    expect(levelsB.data.every((level: { reserved: number }) => level.reserved === 0)).toBe(true);
    expect(paid.data.financial_status).toBe('paid');
    expect(firstRefund.data.amount).toBe(1000);
    expect(secondRefund.data.amount).toBe(paid.data.total - 1000);
    expect(refunded.data).toEqual({ id: paid.data.id, financial_status: 'refunded', total_refunded: paid.data.total });
    expect(spentAfter.data.total_spent).toBe(spentBefore.data.total_spent);
    for (const level of levelsC.data) expect(level).toMatchObject({ available: 0, reserved: level.on_hand });
    expect(refused.error).toMatchObject({ code: 'conflict' });

    // A return from request to refund: 2 of 3 shipped shoes approved, received (restocked) and refunded.
    const returnBlock = readmeBlock('return-to-refund').replaceAll('./.data/', `${dataDir}/`);
    const returned = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${returnBlock}`],
      { cwd: root, env: shell },
    );
    const [threePaid, approved, received, closed, refunds, afterReturn, levels]: any[] = returned.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(threePaid.data).toMatchObject({ financial_status: 'paid', line_items: [{ quantity: 3 }] });
    expect(approved.data).toMatchObject({ status: 'approved', message: 'Please send them in their box.' });
    expect(received.data).toMatchObject({ status: 'received', line_items: [{ quantity: 2, restocked_quantity: 2 }] });
    expect(closed.data.status).toBe('closed');
    const goods = threePaid.data.total - threePaid.data.shipping_cost;
    expect(refunds.data).toEqual([
      expect.objectContaining({ id: closed.data.refund_id, amount: Math.floor((goods * 2) / 3) }),
    ]);
    expect(afterReturn.data).toEqual({
      id: threePaid.data.id,
      financial_status: 'partially_refunded',
      total_refunded: Math.floor((goods * 2) / 3),
      returns: [{ id: closed.data.id, status: 'closed' }],
    });
    const atDefault = levels.data.find(
      (level: { location_id: string }) => level.location_id === received.data.location_id,
    );
    expect(atDefault.on_hand).toBe(9);

    // The storefront walkthrough: a signed-in customer's checkout, address, rate, test payment, the order, my orders.
    const walkthrough = readmeBlock('storefront-walkthrough').replaceAll('./.data/', `${dataDir}/`);
    const journey = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${walkthrough}`],
      { cwd: root, env: shell },
    );
    const [addressed, rates, rated, applied, placed, mine]: any[] = journey.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(addressed.data).toMatchObject({ status: 'open', currency: 'EUR', subtotal: 4900, tax: 931, total: 5831 });
    expect(addressed.data.customer_id).toMatch(/^cus_/);
    expect(rates.data.map((rate: { name: string }) => rate.name)).toContain('Standard');
    expect(rated.data).toMatchObject({ shipping_cost: 490, total: 4900 + 931 + 490 });
    // 10 % of 4900 off; 19 % tax on the 4410 left: 837.9 -> 838.
    expect(applied.data).toMatchObject({
      discount_codes: ['WELCOME10'],
      discount: 490,
      tax: 838,
      total: 4410 + 838 + 490,
    });
    expect(placed.data).toMatchObject({
      financial_status: 'paid',
      total: applied.data.total,
      discount: 490,
      checkout_id: rated.data.id,
      customer_id: addressed.data.customer_id,
      payments: [{ provider: 'test', status: 'succeeded' }],
    });
    expect(mine.data.map((order: { id: string }) => order.id)).toEqual([placed.data.id]);
    // Suppliers and menus: a purchase order received in two parts moves on hand by 12; the menu read by handle.
    const suppliers = readmeBlock('suppliers-and-menus').replaceAll('./.data/', `${dataDir}/`);
    const stocked = await run('bash', ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${suppliers}`], {
      cwd: root,
      env: shell,
    });
    const [levelsBefore, partly, fully, levelsAfter, menu]: any[] = stocked.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const onHand = (levels: any) =>
      levels.data.reduce((sum: number, level: { on_hand: number }) => sum + level.on_hand, 0);
    expect(partly.data).toMatchObject({ status: 'partially_received', received_quantity: 5 });
    expect(fully.data).toMatchObject({ status: 'received', received_quantity: 12, subtotal: 50400 });
    expect(onHand(levelsAfter)).toBe(onHand(levelsBefore) + 12);
    expect(menu.data).toMatchObject({
      handle: 'main-menu',
      items: [{ title: 'Shop' }, { title: 'Journal', type: 'url' }],
    });
    expect(menu.data.items[0].items[0].items[0]).toMatchObject({ type: 'product', handle: expect.any(String) });
    expect((await fetch(`${server.baseUrl}/docs`)).status).toBe(200);
    expect(server.output()).toContain(`${server.baseUrl}/docs`);
  }, 120_000);
});
