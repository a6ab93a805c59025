/**
 * `npm run contract:breaking`: compares openapi.yaml with the contract of the previous release
 * (`openapi.previous.yaml`, committed; copied from openapi.yaml when a version is released, see CHANGELOG.md)
 * with api-smart-diff, and fails when a breaking change (a removed operation, a narrowed parameter or field, a
 * new required input, a removed enum value or response field, ...) is not listed under "Breaking" in the
 * `## Unreleased` section of CHANGELOG.md. A change is listed when that section names its operation as
 * `METHOD /path` (for a webhook entry: `webhook <name>`; for the document's top level: the key, e.g. `servers`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiCompare, type Diff } from 'api-smart-diff';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const read = (name: string) => readFileSync(path.join(root, name), 'utf8');

/** What a breaking change is filed under: its operation, webhook entry or top-level key (components: none). */
export function subjectOf(diff: Diff): string | undefined {
  const [top, name, method] = diff.path.map(String);
  if (top === 'paths') return method ? `${method.toUpperCase()} ${name}` : `${name}`;
  if (top === 'webhooks') return `webhook ${name}`;
  // Component changes reach clients only through the operations that use them, which are reported there.
  if (top === 'components') return undefined;
  return top;
}

/** The text of the "Breaking" part of the `## Unreleased` section of a changelog ('' when there is none). */
export function unreleasedBreaking(changelog: string): string {
  const unreleased = /^## Unreleased\b[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)?.[1] ?? '';
  return /^### Breaking\b[^\n]*\n([\s\S]*?)(?=^### |(?![\s\S]))/m.exec(unreleased)?.[1] ?? '';
}

// `GET /v1/customers` is not listed by an entry for `GET /v1/customers/{id}`.
const mentions = (text: string, subject: string) =>
  new RegExp(`${subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/{}-])`).test(text);

/** The breaking changes between two contracts, by subject, and those the changelog text does not list. */
export function unlistedBreakingChanges(previous: unknown, current: unknown, breakingText: string) {
  const bySubject = new Map<string, Diff[]>();
  for (const diff of apiCompare(previous, current).diffs) {
    const subject = diff.type === 'breaking' ? subjectOf(diff) : undefined;
    if (subject) bySubject.set(subject, [...(bySubject.get(subject) ?? []), diff]);
  }
  const unlisted = [...bySubject].filter(([subject]) => !mentions(breakingText, subject));
  return { bySubject, unlisted };
}

function describe(diff: Diff): string {
  const where = diff.path.slice(3).join('.');
  const change = `${JSON.stringify(diff.before) ?? '(none)'} -> ${JSON.stringify(diff.after) ?? '(none)'}`;
  return `${diff.description?.trim() || `${diff.action} ${where}`}: ${change.slice(0, 160)}`;
}

function main(): void {
  const started = Date.now();
  const { bySubject, unlisted } = unlistedBreakingChanges(
    parse(read('openapi.previous.yaml')),
    parse(read('openapi.yaml')),
    unreleasedBreaking(read('CHANGELOG.md')),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (unlisted.length > 0) {
    console.error(
      `openapi.yaml has breaking changes against openapi.previous.yaml that CHANGELOG.md does not list under ` +
        `"## Unreleased" / "### Breaking" (name each as it appears below):`,
    );
    for (const [subject, diffs] of unlisted) {
      console.error(`  ${subject}`);
      for (const diff of diffs.slice(0, 5)) console.error(`    ${describe(diff)}`);
      if (diffs.length > 5) console.error(`    ... and ${diffs.length - 5} more`);
    }
    process.exit(1);
  }
  console.log(
    `Breaking changes against openapi.previous.yaml: ${bySubject.size} operation(s), all listed in CHANGELOG.md (${seconds} s).`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
