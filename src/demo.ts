import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { AppDeps } from './app-deps.js';
import { createProject, type IssuedKey } from './modules/platform/index.js';
import { seedDemoCatalog } from './seed/demo-catalog.js';
import { seedDemoStore } from './seed/demo-store.js';

export interface DemoFile {
  project_id: string;
  keys: Record<'secret_test' | 'secret_live' | 'publishable_test' | 'publishable_live', IssuedKey>;
  platform_token?: string;
}

// The demo project's name and domain: how a production start recognises one made by an earlier development start.
const DEMO_NAME = 'Demo Store';
const DEMO_DOMAIN = 'demo-store.example.com';

const demoPath = (dataDir: string) => path.join(dataDir, 'demo.json');

/** The saved demo file, if any. */
export function readDemoFile(dataDir: string): DemoFile | undefined {
  const file = demoPath(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoFile) : undefined;
}

/** A platform token for local development: the saved one, else a new one. */
export function developmentPlatformToken(dataDir: string): string {
  return readDemoFile(dataDir)?.platform_token ?? `plat_${randomBytes(24).toString('base64url')}`;
}

/**
 * On a database without projects, creates the demo project (verified domain, so every key works) with
 * a small demo catalog, shipping zones with rates, customers with addresses, customer groups, a wholesale price list, and
 * writes its keys (and a generated development platform token) to DATA_DIR/demo.json. Returns the demo file when there is one.
 */
export async function ensureDemoProject(deps: AppDeps, generatedPlatformToken?: string): Promise<DemoFile | undefined> {
  const saved = readDemoFile(deps.config.dataDir);
  if ((await deps.db.project.count()) > 0) return saved;
  const { project, keys } = await createProject(deps.db, {
    name: DEMO_NAME,
    domain: DEMO_DOMAIN,
    domain_verified: true,
    plan: 'pro',
    // Tax on, so draft orders show their tax: sales tax in two US states, VAT in three European countries.
    tax: {
      enabled: true,
      inclusive: false,
      rates: [
        { country: 'US', state: 'CA', rate: 0.0725 },
        { country: 'US', state: 'NY', rate: 0.04 },
        { country: 'DE', rate: 0.19 },
        { country: 'FR', rate: 0.2 },
        { country: 'GB', rate: 0.2 },
      ],
    },
    // Search shows prices in these currencies too (`currency=EUR`).
    exchange_rates: { EUR: 0.92, GBP: 0.79 },
    contact_email: 'owner@demo-store.example.com',
  });
  const ctx = await seedDemoCatalog(deps, project, keys.secret_test.id);
  await seedDemoStore(ctx);
  // Only a token made here is saved; an operator's PLATFORM_TOKEN never lands in a file.
  const demo: DemoFile = { project_id: project.id, keys, platform_token: generatedPlatformToken };
  writeFileSync(demoPath(deps.config.dataDir), `${JSON.stringify(demo, null, 2)}\n`);
  chmodSync(demoPath(deps.config.dataDir), 0o600);
  return demo;
}

/** The id of a demo project this database serves (not suspended), whose keys an earlier start printed; else undefined. */
export async function servedDemoProject(db: AppDeps['db']): Promise<string | undefined> {
  const project = await db.project.findFirst({
    where: { name: DEMO_NAME, domain: DEMO_DOMAIN, suspended: false },
    select: { id: true },
  });
  return project?.id;
}
