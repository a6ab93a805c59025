import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCustomer } from '../../factories/customer.factory.js';
import { root } from '../../setup/process.js';
import { useStore } from '../../setup/store.js';

// "A fresh project installs the SDK tarball": `npm run sdk:pack` builds and packs the package, the tarball is
// installed into a temporary project with npm (no link to this repository: its own openapi-fetch from the
// registry), the README's examples are type-checked there with tsc and run with node against a running app, and a
// storefront script that calls a secret-key operation fails to compile, naming the path.
const run = promisify(execFile);
const sdkDir = path.join(root, 'sdk');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const store = useStore();
const sdkVersion = (JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8')) as { version: string }).version;
let scratch: string;

/** The ```ts block that follows `<!-- example: <name> -->` in sdk/README.md. */
function readmeExample(name: string): string {
  const readme = readFileSync(path.join(sdkDir, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`sdk/README.md has no example ${name}`);
  return match[1];
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
  writeFileSync(
    path.join(scratch, 'package.json'),
    JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
  );
  writeFileSync(
    path.join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'out',
        types: ['node'],
      },
      exclude: ['node_modules', 'out', 'shop'], // shop/ is the storefront test's project of its own
    }),
  );
  await run('npm', ['run', 'sdk:pack'], { cwd: root });
  const tarball = path.join(root, '.data/sdk', `commerce-api-sdk-${sdkVersion}.tgz`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, '@types/node@20'], {
    cwd: scratch,
  });
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the SDK package', () => {
  test('installed from its tarball, a copy with its own dependencies, declares ESM entry points and types', () => {
    const installed = path.join(scratch, 'node_modules/@commerce-api/sdk');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(
      JSON.parse(readFileSync(path.join(scratch, 'package.json'), 'utf8')).dependencies['@commerce-api/sdk'],
    ).toMatch(/^file:.*commerce-api-sdk-[\d.]+\.tgz$/);
    // No link into this repository: the package is a copy, and openapi-fetch resolves inside the scratch project.
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(realpathSync(installed).startsWith(realpathSync(scratch))).toBe(true);
    const resolved = createRequire(path.join(installed, 'package.json')).resolve('openapi-fetch/package.json');
    expect(realpathSync(resolved).startsWith(realpathSync(scratch))).toBe(true);
  });

  test('a storefront script type-checks, and fails to compile when it calls /v1/customers, naming the path', async () => {
    const dir = path.join(scratch, 'shop');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          // The package's declarations are checked whole by the scratch project's compile (the README's examples,
          // below, without skipLibCheck); here only the storefront script is, as most projects' templates set it.
          skipLibCheck: true,
          // The second compile below (one line added) checks only what changed, as an editor or `tsc --watch` would.
          incremental: true,
          tsBuildInfoFile: 'shop.tsbuildinfo',
        },
        include: ['shop.ts'],
      }),
    );
    const shop = [
      "import { createStorefrontClient } from '@commerce-api/sdk';",
      "const shop = createStorefrontClient({ baseUrl: 'http://127.0.0.1:1', publishableKey: 'pk_test_x' });",
      "const { data } = await shop.GET('/v1/products', { params: { query: { limit: 2 } } });",
      'console.log(data?.data.map((product) => product.title));',
      "await shop.POST('/v1/shipping/rates', { body: { country: 'US', subtotal: 100, currency: 'USD' } });",
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'shop.ts'), shop);
    await run(process.execPath, [tsc, '-p', '.'], { cwd: dir }).catch((error: { stdout: string }) => {
      throw new Error(`tsc failed on the storefront script:\n${error.stdout}`);
    });
    writeFileSync(path.join(dir, 'shop.ts'), `${shop}await shop.GET('/v1/customers');\n`);
    const failed = await run(process.execPath, [tsc, '-p', '.'], { cwd: dir }).then(
      () => 'compiled',
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toContain('\'"/v1/customers is not a GET operation of this client"\'');
    expect(failed.match(/error TS/g)).toHaveLength(1);
    // A whole tsc run of a fresh project and an incremental one.
  }, 240_000);

  test("the README's example type-checks against the package and lists every customer with cursor iteration", async () => {
    const names = ['Zed', 'Young', 'Xu', 'Ward', 'Vance'];
    for (const last of names)
      await createCustomer(store.api, {
        first_name: 'Pat',
        last_name: last,
        email: `${last.toLowerCase()}@scratch.example`,
      });
    writeFileSync(
      path.join(scratch, 'list-customers.ts'),
      readmeExample('list-customers.ts').replace('limit: 100', 'limit: 2'),
    );
    // Fully typed: a wrong use of an item does not compile, so the types are not `any`.
    writeFileSync(
      path.join(scratch, 'typed.ts'),
      [
        "import { createCommerceClient, type Schema } from '@commerce-api/sdk';",
        "const api = createCommerceClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x' });",
        "for await (const customer of api.paginate('/v1/customers', { query: { limit: 2 } })) {",
        '  const whole: Schema<"Customer"> = customer;',
        '  // @ts-expect-error an email is a string',
        '  const wrong: number = customer.email;',
        '  void whole; void wrong;',
        '}',
        '// @ts-expect-error /v1/customer is not a path of the contract',
        "api.paginate('/v1/customer');",
        '',
      ].join('\n'),
    );
    // The README's error handling example compiles against the package too (branching on the typed codes).
    writeFileSync(path.join(scratch, 'errors.ts'), readmeExample('errors.ts'));
    await run(process.execPath, [tsc, '-p', '.'], { cwd: scratch }).catch((error: { stdout: string }) => {
      throw new Error(`tsc failed in the scratch project:\n${error.stdout}`);
    });

    const { stdout } = await run(process.execPath, ['out/list-customers.js'], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH!,
        COMMERCE_API_URL: store.app.baseUrl,
        COMMERCE_SECRET_KEY: store.keys.secret_test.token,
      },
    });
    const sorted = [...names].sort();
    expect(stdout.trim().split('\n')).toEqual([
      ...sorted.map((last) => `${last}, Pat <${last.toLowerCase()}@scratch.example>`),
      '5 customers',
    ]);
  }, 120_000);
});
