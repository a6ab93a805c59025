import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';

const root = path.resolve(import.meta.dirname, '../..');
const guide = readFileSync(path.join(root, 'docs/deploy.md'), 'utf8');

/** Every file under `dir` whose name ends in .ts. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? tsFiles(file) : name.endsWith('.ts') ? [file] : [];
  });
}

describe('docs/deploy.md cannot drift from what the tests run', () => {
  // Each fenced block: its language, its text, and the `<!-- tested: name -->` right before it, if any.
  const blocks: Array<{ tested?: string; language: string; text: string }> = [];
  const lines = guide.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\w*)$/.exec(lines[index]);
    if (!fence) continue;
    const end = lines.indexOf('```', index + 1);
    const tested = /^<!-- tested: ([\w.-]+) -->$/.exec(lines[index - 1] ?? '')?.[1];
    blocks.push({ tested, language: fence[1], text: lines.slice(index + 1, end).join('\n') });
    index = end;
  }

  test('every configuration block (all but the diagram and the example commands) is marked as tested', () => {
    const untested = blocks.filter((block) => !block.tested && block.language !== 'sh' && !/[│┌└]/.test(block.text));
    expect(untested).toEqual([]);
  });

  test('every tested block is read by a test (tests/setup or tests/integration) through guideBlock', () => {
    const sources = tsFiles(path.join(root, 'tests'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const names = blocks.flatMap((block) => block.tested ?? []);
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) expect([name, sources.includes(`guideBlock('${name}')`)]).toEqual([name, true]);
  });
});
