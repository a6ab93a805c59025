import { describe, expect, test } from '@jest/globals';
import { readyLineWatcher } from '../../../src/db/postmaster.js';

const READY = '2026-11-30 08:37:40.101 UTC [812] LOG:  database system is ready to accept connections\n';
const REFUSED = '2026-11-30 08:37:40.087 UTC [815] FATAL:  the database system is starting up\n';

describe('readyLineWatcher (the embedded PostgreSQL started)', () => {
  test('sees the ready line in a chunk of its own', () => {
    const ready = readyLineWatcher();
    expect(ready(REFUSED)).toBe(false);
    expect(ready(READY)).toBe(true);
  });

  test('sees it split across two chunks, wherever the split falls', () => {
    for (let split = 1; split < READY.length; split++) {
      const ready = readyLineWatcher();
      const seenFirst = ready(REFUSED + READY.slice(0, split));
      expect(seenFirst || ready(READY.slice(split))).toBe(true);
    }
  });

  test('sees it in a chunk that carries many lines after it (a loaded machine hands over several at once)', () => {
    const ready = readyLineWatcher();
    expect(ready(REFUSED + READY + REFUSED.repeat(20))).toBe(true);
  });

  test('says nothing for a log without the line', () => {
    const ready = readyLineWatcher();
    for (let i = 0; i < 50; i++) expect(ready(REFUSED)).toBe(false);
  });
});
