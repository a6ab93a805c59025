import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import puppeteer, { type Browser } from 'puppeteer-core';
import { openapiJson } from '../../../src/generated/document.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

// Debian's chromium package; .ci/run installs it when missing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = path.resolve(import.meta.dirname, '../../artifacts');

let app: TestApp;
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH.`);
  app = await startTestApp();
  browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('GET /docs', () => {
  test('renders the reference in Chromium: every tag with its operations, no console error, no failed request, nothing from another host', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    const failed: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()} ${response.status()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(app.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    await page.setViewport({ width: 1280, height: 2400 });
    const response = await page.goto(`${app.baseUrl}/docs`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });

    const document = JSON.parse(openapiJson) as { tags: Array<{ name: string }>; paths: Record<string, Record<string, { operationId?: string }>> };
    const shownTags = await page.$$eval('.opblock-tag', (nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(shownTags.sort()).toEqual(expect.arrayContaining(document.tags.map((tag) => tag.name).filter((name) => usedTags(document).has(name)).sort()));
    const operationCount = Object.values(document.paths).flatMap((item) => Object.values(item)).filter((op) => op.operationId).length;
    expect(await page.$$eval('.opblock', (nodes) => nodes.length)).toBe(operationCount);
    expect(await page.$eval('.info .title', (node) => node.textContent)).toContain('Commerce');

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'docs.png') });
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);

  test('the assets are served with their content types; an unknown one is 400', async () => {
    const css = await fetch(`${app.baseUrl}/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    const js = await fetch(`${app.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(js.headers.get('content-type')).toContain('application/javascript');
    expect((await fetch(`${app.baseUrl}/docs/assets/secrets.txt`)).status).toBe(400);
  });
});

function usedTags(document: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  return new Set(
    Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => ((op as { tags?: string[] }).tags ?? [])),
  );
}
