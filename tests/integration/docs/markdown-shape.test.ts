import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';

// Documents a newcomer can read: bench/README.md says how to run each bench, what it measures and its
// latest results, not the history of every attempt; a table cell in docs/ or README.md stays a cell, its long
// explanation goes to a paragraph below the table.
const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const BENCH_README_LINES = 400;
const CELL_CHARACTERS = 600;

/** The cells of a Markdown table row (`| a | b |`), split at unescaped pipes. */
const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** Every table cell of `file` longer than CELL_CHARACTERS, as `file:line (length): start`. */
function longCells(file: string): string[] {
  let inFence = false;
  return read(file)
    .split('\n')
    .flatMap((line, i) => {
      if (line.trimStart().startsWith('```')) inFence = !inFence;
      if (inFence || !line.trimStart().startsWith('|')) return [];
      return cellsOf(line)
        .filter((cell) => cell.length > CELL_CHARACTERS)
        .map((cell) => `${file}:${i + 1} (${cell.length}): ${cell.slice(0, 60)}`);
    });
}

describe('documents stay readable', () => {
  test(`bench/README.md is under ${BENCH_README_LINES} lines`, () => {
    expect(read('bench/README.md').split('\n').length).toBeLessThan(BENCH_README_LINES);
  });

  test(`no table cell in docs/*.md or README.md is over ${CELL_CHARACTERS} characters`, () => {
    const files = [
      ...readdirSync(path.join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
      'README.md',
    ];
    expect(files.flatMap(longCells)).toEqual([]);
  });
});
