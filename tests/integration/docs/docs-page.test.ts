import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser } from 'puppeteer-core';
import { openapiJson } from '../../../src/generated/document.js';
import { launchChromium, timeToInteractive } from '../../setup/docs-page.js';
import { useStore } from '../../setup/store.js';

const artifacts = path.resolve(import.meta.dirname, '../../artifacts');

const store = useStore();
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const spec = JSON.parse(openapiJson) as {
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
};
describe('GET /docs', () => {
  test('is interactive within 10 s of a first visit (median of three, each with an empty browser cache; 1.7-3 s on a quiet machine)', async () => {
    // The first of the three is also the server's first visitor (it compresses the page, assets and document
    // then). The machine is shared, so one visit can be slowed by others' work: the median is asserted. Speed is
    // a benchmark's to measure: the bound catches the slow page this replaced (11-25 s) while jest runs suites in
    // parallel (4.8 s measured then); the times printed are the figure (1.7-3.0 s on this 2-CPU machine alone).
    const times: number[] = [];
    for (let visit = 0; visit < 3; visit++) times.push(await timeToInteractive(browser, store.app.baseUrl));
    console.log(`/docs time to interactive, ms: ${times.map((ms) => Math.round(ms)).join(', ')}`);
    expect(times.sort((a, b) => a - b)[1]).toBeLessThan(10_000);
  }, 120_000);

  test('try it out: authorized with a secret key, a request from the page reaches the server and its answer is shown', async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 2400 });
    await page.goto(`${store.app.baseUrl}/docs#/customers/listCustomers`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#operations-customers-listCustomers.is-open .try-out__btn', { timeout: 30_000 });
    // The server variable points at this server; the secret key goes into the secretKey scheme.
    // (Typed again should the page re-render the input while it is typed into.)
    for (let attempt = 1; ; attempt++) {
      const variable = (await page.waitForSelector('input[data-variable="baseUrl"]'))!;
      await variable.focus();
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyA');
      await page.keyboard.up('Control');
      await page.keyboard.type(store.app.baseUrl);
      try {
        await page.waitForFunction(
          `document.querySelector('.computed-url code')?.textContent === ${JSON.stringify(store.app.baseUrl)}`,
          { timeout: 5_000 },
        );
        break;
      } catch (error) {
        if (attempt === 3) {
          const shown = await page.$eval('.computed-url code', (node) => node.textContent);
          throw new Error(`server URL shown: ${shown}`, { cause: error });
        }
      }
    }
    await page.click('.btn.authorize');
    await page.waitForSelector('.auth-container');
    const containers = await page.$$('.auth-container');
    const names = await Promise.all(containers.map((node) => node.$eval('h4 code', (code) => code.textContent)));
    const container = containers[names.indexOf('secretKey')];
    await (await container.$('input'))!.type(store.keys.secret_test.token);
    await (await container.$('button.authorize'))!.click();
    await (await container.$('button.btn-done'))!.click();
    await page.click('#operations-customers-listCustomers .try-out__btn');
    // Swagger UI fills the parameters with their examples (a group id of no group of this project, among
    // others): cleared, as a user would, so the request lists the project's customers.
    for (const input of await page.$$('#operations-customers-listCustomers .parameters input[type="text"]')) {
      await input.click({ count: 3 });
      await input.press('Backspace');
    }
    await page.click('#operations-customers-listCustomers .execute');
    const status = await page.waitForSelector(
      '#operations-customers-listCustomers .live-responses-table .response .response-col_status',
      { timeout: 15_000 },
    );
    expect((await status!.evaluate((node) => node.textContent))?.trim()).toBe('200');
    const curl = await page.$eval('#operations-customers-listCustomers .curl-command', (node) => node.textContent);
    expect(curl).toContain(`${store.app.baseUrl}/v1/customers`);
    expect(curl).toContain(`Authorization: Bearer ${store.keys.secret_test.token}`);
    const body = await page.$eval(
      '#operations-customers-listCustomers .live-responses-table .response .response-col_description pre',
      (node) => node.textContent,
    );
    expect(JSON.parse(body)).toMatchObject({ data: expect.any(Array) });
    await context.close();
  }, 60_000);

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
      if (!request.url().startsWith(store.app.baseUrl) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.setViewport({ width: 1280, height: 2400 });
    const response = await page.goto(`${store.app.baseUrl}/docs`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
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
    const css = await fetch(`${store.app.baseUrl}/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    const js = await fetch(`${store.app.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(js.headers.get('content-type')).toContain('application/javascript');
    expect((await fetch(`${store.app.baseUrl}/docs/assets/secrets.txt`)).status).toBe(400);
  });
});
