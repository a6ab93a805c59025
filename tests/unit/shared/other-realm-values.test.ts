import { runInNewContext } from 'node:vm';
import { describe, expect, test } from '@jest/globals';
import { canonicalJson } from '../../../src/shared/canonical-json.js';
import { paginate, type PageFetch } from '../../../src/shared/pagination.js';

// A library may hand the app objects made in another JavaScript realm (another VM context): their Date fails
// `instanceof Date` here. These are checked as what they are, whatever realm made them.
const otherRealmDate = (iso: string): Date => runInNewContext(`new Date(${JSON.stringify(iso)})`) as Date;
const ISO = '2026-03-04T05:06:07.089Z';

describe('values made in another realm', () => {
  test('a Date of another realm is a Date there, not an instance of this one', () => {
    expect(otherRealmDate(ISO) instanceof Date).toBe(false);
  });

  test('canonicalJson writes another realm’s Date as its ISO string, as it writes this realm’s', () => {
    const value = { b: otherRealmDate(ISO), a: [otherRealmDate(ISO)] };
    expect(canonicalJson(value)).toBe(`{"a":["${ISO}"],"b":"${ISO}"}`);
    expect(canonicalJson(value)).toBe(canonicalJson({ a: [new Date(ISO)], b: new Date(ISO) }));
  });

  test('a keyset cursor after a row whose date comes from another realm continues after that date', async () => {
    const pageAfter = async (createdAt: Date) => {
      const rows = [
        { id: 'a', createdAt },
        { id: 'b', createdAt: new Date('2026-03-05T00:00:00.000Z') },
      ];
      const options = {
        secret: 'secret',
        orderBy: { keys: [{ field: 'createdAt', kind: 'date' as const }], order: 'asc' as const },
        shape: { list: 'things' },
        count: async () => 2,
      };
      const first = await paginate({ ...options, params: { limit: 1 }, fetch: async () => rows });
      let from: PageFetch['from'];
      await paginate({
        ...options,
        params: { limit: 1, cursor: first.pagination.cursor! },
        fetch: async (args) => {
          from = args.from;
          return rows.slice(1);
        },
      });
      return { cursor: first.pagination.cursor, from };
    };
    const other = await pageAfter(otherRealmDate(ISO));
    expect(other.from).toEqual([new Date(ISO), 'a']);
    expect(other.cursor).toBe((await pageAfter(new Date(ISO))).cursor);
  });
});
