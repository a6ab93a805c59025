import { readFileSync } from 'node:fs';
import path from 'node:path';

const guide = path.resolve(import.meta.dirname, '../../docs/deploy.md');

/**
 * The fenced block of docs/deploy.md that follows `<!-- tested: <name> -->`: the configuration the tests run, so
 * the guide cannot drift from what is tested. Throws when the guide has no such block.
 */
export function guideBlock(name: string): string {
  const text = readFileSync(guide, 'utf8');
  const marker = `<!-- tested: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/deploy.md has no block marked ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(text.slice(at + marker.length));
  if (!match) throw new Error(`docs/deploy.md: no fenced block after ${marker}`);
  return match[1];
}

/**
 * `block` with each of the guide's example values replaced by the test's (its addresses, ports, paths): every
 * one must occur, so a guide that changes a value a test relies on fails the test instead of being run unchanged.
 */
export function localised(block: string, replacements: Array<[string | RegExp, string]>): string {
  let text = block;
  for (const [from, to] of replacements) {
    const found = typeof from === 'string' ? text.includes(from) : new RegExp(from.source, 'm').test(text);
    if (!found) throw new Error(`docs/deploy.md's block no longer contains ${String(from)}:\n${block}`);
    text = typeof from === 'string' ? text.split(from).join(to) : text.replace(new RegExp(from.source, 'gm'), to);
  }
  return text;
}
