/**
 * /docs in headless Chromium, shared by the browser test (tests/integration/docs/docs-page.test.ts) and the bench
 * of the page (`npm run bench:docs`): one readiness condition for both.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { openapiJson } from '../../src/generated/document.js';

// Debian's chromium package; .ci/run installs it when missing.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium as the tests run it; throws with what to install when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH.`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

const spec = JSON.parse(openapiJson) as { paths: Record<string, Record<string, { tags?: string[] }>> };
/** The tags the page lists: each operation's first. */
const tagCount = new Set(
  Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags?.slice(0, 1) ?? [])),
).size;

/** Clicks the element `selector` names until `done` names something (a click can land on a node being re-rendered). */
export async function clickUntil(page: Page, selector: string, done: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (!(await page.$(done))) await page.click(selector);
    try {
      await page.waitForSelector(done, { timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/**
 * One first visit of `${baseUrl}/docs` in a fresh browser context (empty cache): the wall-clock milliseconds from
 * asking for the page until it is interactive, which here means: every tag of the document is listed, a click on a
 * tag (`service`) lists its operations, and a click on one of them (`getHealth`) opens it with its "Try it out" button.
 */
export async function timeToInteractive(browser: Browser, baseUrl: string): Promise<number> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    const started = performance.now();
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(`document.querySelectorAll('.opblock-tag').length >= ${tagCount}`, { timeout: 30_000 });
    await clickUntil(page, '.opblock-tag[data-tag="service"]', '#operations-service-getHealth');
    await clickUntil(
      page,
      '#operations-service-getHealth .opblock-summary-control',
      '#operations-service-getHealth.is-open .try-out__btn',
    );
    return performance.now() - started;
  } finally {
    await context.close();
  }
}
