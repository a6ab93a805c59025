import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import puppeteer, { type Browser } from 'puppeteer-core';
import { openapiJson } from '../../../src/generated/document.js';
import { useApp } from '../../setup/store.js';

// Debian's chromium package; .ci/run installs it when missing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = path.resolve(import.meta.dirname, '../../artifacts');

const app = useApp();
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH.`);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});
afterAll(async () => {
  await browser?.close();
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
    const spec = JSON.parse(openapiJson) as {
      tags: Array<{ name: string }>;
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
    };
    const operations = Object.values(spec.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => op.operationId);
    const expected = new Map<string, number>();
    for (const op of operations) expected.set(op.tags![0], (expected.get(op.tags![0]) ?? 0) + 1);
    // The page lists the tags collapsed (142 operations expanded at once are slow to render); every tag of
    // the document must be there, and opening it must show each of its operations.
    await page.waitForFunction(`document.querySelectorAll('.opblock-tag').length >= ${expected.size}`, {
      timeout: 30_000,
    });
    const shownTags = await page.$$eval('.opblock-tag', (nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(shownTags).toEqual(expect.arrayContaining([...expected.keys()]));
    expect(shownTags.filter((tag) => !spec.tags.some((declared) => declared.name === tag))).toEqual([]);
    let shownOperations = 0;
    for (const [tag, count] of expected) {
      const heading = `.opblock-tag[data-tag="${tag}"]`;
      const inTag = `.opblock-tag-section:has(${heading}) .opblock`;
      // Opening a tag re-renders the page around it, so a click can land on a node being replaced: try again.
      for (let attempt = 1; ; attempt++) {
        try {
          const element = await page.waitForSelector(
            `${heading}[data-is-open="false"], ${heading}[data-is-open="true"]`,
            { timeout: 10_000 },
          );
          if ((await element!.evaluate((node) => node.getAttribute('data-is-open'))) !== 'true') await element!.click();
          await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(inTag)}).length >= ${count}`, {
            timeout: 15_000,
          });
          break;
        } catch (error) {
          if (attempt === 3)
            throw new Error(
              `tag ${tag}: ${await page.$$eval(inTag, (nodes) => nodes.length)} of its ${count} operations shown (${String(error)})`,
              { cause: error },
            );
        }
      }
      shownOperations += await page.$$eval(inTag, (nodes) => nodes.length);
      // Closed again, so the page stays small while the next tag renders.
      await (await page.waitForSelector(`${heading}[data-is-open="true"]`))!.click();
      await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(inTag)}).length === 0`, {
        timeout: 15_000,
      });
    }
    expect(shownOperations).toBe(operations.length);
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
