import { describe, expect, test } from '@jest/globals';
import { Prisma } from '../../../src/generated/prisma/client.js';
import { CompiledTsQueries } from '../../../src/modules/search/index-engine/compiled-tsqueries.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const simple = (word: string) => Prisma.sql`to_tsquery('simple', ${word})`;
const english = (word: string) => Prisma.sql`to_tsquery('english', ${word})`;
const reversed = (word: string) => Prisma.sql`to_tsquery('simple', reverse(${word}))`;

describe('CompiledTsQueries', () => {
  test('answers every tsquery asked for while other searches evict it from the memo', async () => {
    const ctx = await keyCtx(store.app, store.project.id, 'key_test');
    // A memo of two: every compilation past the first evicts others while they wait on PostgreSQL.
    const memo = new CompiledTsQueries(2);
    await memo.compile(ctx, [simple('alpha')]);
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`);
    const answers = await Promise.all(words.map((word) => memo.compile(ctx, [simple('alpha'), simple(word)])));
    answers.forEach(([known, asked], i) => {
      expect(known?.operands.map((operand) => operand.lexeme)).toEqual(['alpha']);
      expect(asked?.operands.map((operand) => operand.lexeme)).toEqual([words[i]]);
    });
  });

  test('keeps the most recently used tsqueries: one asked again is answered without a round trip', async () => {
    const base = await keyCtx(store.app, store.project.id, 'key_test');
    let roundTrips = 0;
    const db = new Proxy(base.db, {
      get: (target, key, receiver) =>
        key === '$queryRaw'
          ? (...args: unknown[]) => {
              roundTrips++;
              return (target.$queryRaw as (...a: unknown[]) => unknown)(...args);
            }
          : Reflect.get(target, key, receiver),
    });
    const ctx = { ...base, db };
    const memo = new CompiledTsQueries(2);
    await memo.compile(ctx, [simple('alpha')]);
    await memo.compile(ctx, [simple('beta')]);
    await memo.compile(ctx, [simple('alpha')]); // alpha is now the most recent: beta goes first
    await memo.compile(ctx, [simple('gamma')]);
    expect(roundTrips).toBe(3);
    await memo.compile(ctx, [simple('alpha')]);
    expect(roundTrips).toBe(3);
    await memo.compile(ctx, [simple('beta')]);
    expect(roundTrips).toBe(4);
  });

  test('statements of different texts with the same values are each answered as their own, concurrently and again', async () => {
    const ctx = await keyCtx(store.app, store.project.id, 'key_test');
    // Three texts, many values, a memo of two: texts and entries start afresh while compilations wait on PostgreSQL.
    // (Shape numbers are never reused, so a key made before a fresh start cannot name another text: by construction.)
    const memo = new CompiledTsQueries(2);
    const texts = [simple, english, reversed];
    const words =
      'running jumping walking talking singing dancing reading writing cooking baking painting drawing swimming fishing hiking biking sailing climbing rowing knitting'.split(
        ' ',
      );
    const ask = (i: number) => texts.map((_, t) => texts[(i + t) % texts.length]);
    const compileAll = () =>
      Promise.all(words.flatMap((word, i) => ask(i).map((text) => memo.compile(ctx, [text(word)]))));
    for (const answers of [await compileAll(), await compileAll()]) {
      words.forEach((word, i) => {
        ask(i).forEach((text, t) => {
          const lexeme = answers[i * texts.length + t][0].operands[0].lexeme;
          if (text === simple) expect(lexeme).toBe(word);
          else if (text === reversed) expect(lexeme).toBe([...word].reverse().join(''));
          else expect([word, [...word].reverse().join('')]).not.toContain(lexeme);
        });
      });
    }
  });
});
