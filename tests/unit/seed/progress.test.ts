import { describe, expect, test } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { progress } from '../../../src/seed/progress.js';

/** A stream that records what is written, posing as a terminal or not. */
function sink(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 120 }) as unknown as NodeJS.WriteStream;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('progress', () => {
  test('on a terminal: a bar with the count, the rate and the time left', () => {
    const { stream, text } = sink(true);
    const bar = progress('Seeding', 1000, 'customers', { stream });
    bar.update(500);
    bar.update(1000);
    bar.stop();
    expect(text()).toMatch(/Seeding \[.*\] 100% \| 1,000 \/ 1,000 customers \| [\d,]+\/s \| ETA/);
  });

  test('elsewhere: a plain line at each tenth of the work and at the end, with the rate', () => {
    const { stream, text } = sink(false);
    const bar = progress('Seeding', 100_000, 'customers', { stream });
    for (let done = 5_000; done <= 100_000; done += 5_000) bar.update(done);
    bar.stop();
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^Seeding: 10,000 \/ 100,000 customers \([\d,]+\/s\)$/);
    expect(lines.at(-1)).toMatch(/^Seeding: 100,000 \/ 100,000 customers/);
  });

  test('a given rate (requests a second) is shown instead of units a second; lines: 1 prints only the end', () => {
    const { stream, text } = sink(false);
    const bar = progress('  API', 10, 's', { stream, lines: 1 });
    for (let second = 1; second < 10; second += 1) bar.update(second, 4000);
    bar.update(10, 4321);
    bar.stop();
    expect(text()).toBe('  API: 10 / 10 s (4,321/s)\n');
  });
});
