import { describe, expect, test } from '@jest/globals';
import { ProjectIndexes, type IndexVersions } from '../../../src/shared/project-indexes.js';

// Versions that never change: every build is kept and stays exact.
const unchanging: IndexVersions = {
  listening: true,
  versionsOf: (_projectId, tables) => tables.map(() => 1),
  projectVersion: () => 0,
  sync: async () => true,
  caughtUp: async () => true,
  trackRows: () => {},
  rowsChanged: () => undefined,
};

describe('ProjectIndexes', () => {
  test('builds of every instance in the process run one at a time, and each is kept', async () => {
    const limits = { maxIndexes: 10, maxBytes: 1_000_000, maxProjectBytes: 1_000_000, sizeOf: () => 1 };
    const products = new ProjectIndexes<string>(unchanging, limits);
    const suggestions = new ProjectIndexes<string>(unchanging, limits);
    let running = 0;
    let most = 0;
    const build = (value: string) => async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running--;
      return value;
    };
    // Asked for together, as a search asks for the product index and the vocabulary.
    const built = await Promise.all([
      products.ready('proj_a', 'products', ['search_products'], build('a products')),
      suggestions.ready('proj_a', 'catalog', ['search_terms'], build('a catalog')),
      products.ready('proj_b', 'products', ['search_products'], build('b products')),
    ]);
    expect(built).toEqual(['a products', 'a catalog', 'b products']);
    expect(most).toBe(1);
    expect(products.get('proj_a', 'products', ['search_products'], build('again'))).toBe('a products');
  });

  test('a failed build does not stop the builds after it', async () => {
    const errors: unknown[] = [];
    const indexes = new ProjectIndexes<string>(
      unchanging,
      { maxIndexes: 10, maxBytes: 100, maxProjectBytes: 100, sizeOf: () => 1 },
      (e) => errors.push(e),
    );
    const failing = indexes.ready('proj_a', 'products', ['t'], () => Promise.reject(new Error('read failed')));
    const next = indexes.ready('proj_b', 'products', ['t'], async () => 'b');
    expect(await next).toBe('b');
    expect(await failing).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => (e as Error).message === 'read failed')).toBe(true);
  });

  test('refresh starts applying changed rows to a held index without reading it; the read then finds it exact', async () => {
    let version = 1;
    const versions: IndexVersions = {
      ...unchanging,
      // As TableVersions answers: the feed's drops, the project's serial and writes, then each table's version.
      versionsOf: (_projectId, tables) => [0, 0, 0, ...tables.map(() => version)],
      rowsChanged: (_projectId, _table, from, to) => (from === 1 && to === 2 ? ['prod_1'] : undefined),
    };
    const indexes = new ProjectIndexes<string>(versions, {
      maxIndexes: 10,
      maxBytes: 100,
      maxProjectBytes: 100,
      sizeOf: () => 1,
    });
    const applied: string[][] = [];
    const patch = {
      table: 't',
      apply: async (value: string, rows: string[]) => {
        applied.push(rows);
        return `${value}+${rows.join(',')}`;
      },
      compact: () => false,
    };
    const build = async () => 'built';
    expect(await indexes.ready('proj_a', 'products', ['t'], build, patch)).toBe('built');
    version = 2;
    indexes.refresh('proj_a', 'products', ['t'], build, patch);
    expect(applied).toEqual([['prod_1']]);
    const { hits, misses } = indexes;
    expect(await indexes.waitingGet('proj_a', 'products', ['t'], build, patch, 1_000)).toBe('built+prod_1');
    // The refresh is not a read: only the read above is counted, and nothing was built again.
    expect([indexes.hits - hits, indexes.misses - misses]).toEqual([1, 0]);
    expect(indexes.buildsOf('proj_a', 'products')).toBe(1);
    expect(applied).toHaveLength(1);
    // Nothing held: refresh starts nothing (a build waits for a read).
    indexes.refresh('proj_b', 'products', ['t'], build, patch);
    expect(indexes.buildsOf('proj_b', 'products')).toBe(0);
  });
});
