import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCustomer } from '../../factories/customer.factory.js';
import { root } from '../../setup/process.js';
import { useStore } from '../../setup/store.js';

// "A scratch project outside the repository installs the SDK from its folder and lists customers with
// cursor iteration, fully typed": the package is built, installed into a temporary project with npm, the
// README's example is type-checked there with tsc and run with node against a running app.
const run = promisify(execFile);
const sdkDir = path.join(root, 'sdk');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const store = useStore();
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
  await run('npm', ['run', 'build'], { cwd: sdkDir });
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
    }),
  );
  // --install-links copies the folder as a registry install would (its `files` and its own dependencies),
  // rather than linking it into a tree where the repository's node_modules would hide a missing dependency.
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--install-links', sdkDir, '@types/node@20'],
    { cwd: scratch },
  );
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the SDK package', () => {
  test('installed from its folder, declares ESM entry points and types', () => {
    const manifest = JSON.parse(
      readFileSync(path.join(scratch, 'node_modules/@commerce-api/sdk/package.json'), 'utf8'),
    );
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(
      JSON.parse(readFileSync(path.join(scratch, 'package.json'), 'utf8')).dependencies['@commerce-api/sdk'],
    ).toMatch(/^file:/);
  });

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
