import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// semver comes with npm's own dependency tree (it has no types of its own here).
const semver = createRequire(import.meta.url)('semver') as {
  satisfies: (version: string, range: string) => boolean;
  minVersion: (range: string) => { version: string };
};
const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

describe('engines and install warnings are honest', () => {
  test('the README names every installed package that declares a Node range excluding the lowest one we support', () => {
    const lowest = semver.minVersion(manifest.engines.node).version;
    const section = readme.slice(
      readme.indexOf('<!-- engines:'),
      readme.indexOf('\n\n', readme.indexOf('<!-- engines:') + 200),
    );
    const excluding = Object.entries(lock.packages)
      .filter(
        ([location, info]) =>
          location !== '' &&
          !Array.isArray(info.engines) &&
          info.engines?.node &&
          !semver.satisfies(lowest, info.engines.node),
      )
      .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(excluding.length).toBeGreaterThan(0);
    expect(excluding.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });

  test('the README states the range package.json declares', () => {
    expect(manifest.engines.node).toBe('>=20.19 <23');
    expect(readme).toContain('Node.js 20.19 or newer, 20.x or 22.x (`engines` in package.json)');
  });
});
