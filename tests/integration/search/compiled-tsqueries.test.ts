import { describe, expect, test } from '@jest/globals';
import { Prisma } from '../../../src/generated/prisma/client.js';
import { CompiledTsQueries } from '../../../src/modules/search/product-index.search.js';
import { keyCtx } from '../../setup/ctx.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const simple = (word: string) => Prisma.sql`to_tsquery('simple', ${word})`;

describe('CompiledTsQueries', () => {
  test('answers every tsquery asked for while other searches start its memo afresh', async () => {
    const ctx = await keyCtx(store.app, store.project.id, 'key_test');
    // A memo of two: every compilation past the first starts it afresh while the others wait on PostgreSQL.
    const memo = new CompiledTsQueries(2);
    await memo.compile(ctx, [simple('alpha')]);
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`);
    const answers = await Promise.all(words.map((word) => memo.compile(ctx, [simple('alpha'), simple(word)])));
    answers.forEach(([known, asked], i) => {
      expect(known?.operands.map((operand) => operand.lexeme)).toEqual(['alpha']);
      expect(asked?.operands.map((operand) => operand.lexeme)).toEqual([words[i]]);
    });
  });
});
