import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase } from '../../setup/database.js';
import { prepareDemo } from '../../setup/demo.js';
import { root, startMain, type Cleanups } from '../../setup/process.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'memory-test-platform-token-0123456789';
const PRODUCTS = 40;
const CONCURRENT_LISTS = 50;

// The heap `npm start` gives the server, read from package.json so the test follows any change to it.
const startScript = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start;
const heapOption = /--max-old-space-size=\d+/.exec(startScript)![0];

// The largest product the contract accepts in one request, in the characters that cost the most: U+0001
// is escaped to 6 bytes of JSON, so each row answers as about 800 KB.
const control = (length: number) => '\u0001'.repeat(length);
const maximalProduct = (i: number) => ({
  title: `Heavy ${i} ${'x'.repeat(240)}`,
  description: control(65_535),
  tags: ['heavy', ...Array.from({ length: 24 }, (_, t) => `t${t}-${'y'.repeat(90)}`)],
  product_type: 'z'.repeat(255),
  vendor: 'v'.repeat(255),
  metadata: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`k${k}`.padEnd(40, 'x'), control(500)])),
  variants: Array.from({ length: 100 }, (_, v) => ({
    title: `${v} ${'w'.repeat(250)}`,
    sku: `P${i}-V${v}-${'s'.repeat(240)}`,
    price: 1000 + v,
  })),
});

describe('memory per request is bounded (the server runs with the production heap)', () => {
  test(`${PRODUCTS} maximal products and ${CONCURRENT_LISTS} concurrent maximal list pages with the publishable key leave the server up and answering`, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'memory-bound-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // The demo project as an earlier start made it (its catalog is not what this test is about): a copy of this
    // run's demo template, with its demo.json in dataDir; the server with DEMO_PROJECT=true finds both.
    const database = await createTestDatabase(await prepareDemo(dataDir));
    cleanups.push(database.drop);
    const server = await startMain(
      { DATABASE_URL: database.url, DEMO_PROJECT: 'true', DATA_DIR: dataDir, PLATFORM_TOKEN, NODE_OPTIONS: heapOption },
      cleanups,
    );
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const secret = { Authorization: `Bearer ${demo.keys.secret_test.token}`, 'Content-Type': 'application/json' };
    const publishable = { Authorization: `Bearer ${demo.keys.publishable_test.token}` };
    await fetch(`${server.baseUrl}/platform/v1/projects/${demo.project_id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${PLATFORM_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ rate_limit_per_minute: 100_000 }),
    });

    for (let i = 0; i < PRODUCTS; i += 1) {
      const body = JSON.stringify(maximalProduct(i));
      expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
      const created = await fetch(`${server.baseUrl}/v1/products`, { method: 'POST', headers: secret, body });
      expect([i, created.status, created.status === 201 ? '' : await created.text()]).toEqual([i, 201, '']);
    }

    const list = async () => {
      const response = await fetch(`${server.baseUrl}/v1/products?tag=heavy&limit=100`, { headers: publishable });
      const text = await response.text();
      return { status: response.status, bytes: Buffer.byteLength(text) };
    };
    for (let round = 0; round < 2; round += 1) {
      const answers = await Promise.all(Array.from({ length: CONCURRENT_LISTS }, list));
      expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      expect(Math.max(...answers.map((a) => a.bytes))).toBeLessThan(1.1 * 1024 * 1024);
    }

    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/heap out of memory/i);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    const page = await fetch(`${server.baseUrl}/v1/products?tag=heavy&limit=1`, { headers: publishable });
    expect(((await page.json()) as { pagination: { total: number } }).pagination.total).toBe(PRODUCTS);
  }, 600_000);
});
