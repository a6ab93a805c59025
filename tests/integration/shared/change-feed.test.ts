import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { ChangeFeed, SYNC_CHANNEL } from '../../../src/shared/change-feed.js';
import { createLogger } from '../../../src/shared/logger.js';
import { startSlowLink } from '../../setup/slow-link.js';
import { eventually } from '../../setup/wait.js';

// ChangeFeed.sync: resolves once what committed before the call has been handled, sending one self-notification
// at a time on the listening connection (a query queued behind another is deprecated in node-postgres 8):
// callers that come while one is sent share the next.
const url = process.env.TEST_ADMIN_URL!;
const heard: string[] = [];
let feed: ChangeFeed;

beforeAll(async () => {
  feed = new ChangeFeed(url, createLogger('silent'));
  feed.on('change_feed_test', (payload) => heard.push(payload));
  await feed.start();
});
afterAll(() => feed.close());

describe('ChangeFeed.sync', () => {
  test('fifty each resolve after a notification committed before them; those sent during one share the next', async () => {
    // What the feed sends, as any listener of its channel sees it.
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const sent: string[] = [];
    listener.on('notification', (message) => sent.push(message.payload ?? ''));
    await listener.query(`LISTEN ${SYNC_CHANNEL}`);
    try {
      await listener.query("NOTIFY change_feed_test, 'committed first'");
      const synced = () => feed.sync().then((done) => done && heard.includes('committed first'));
      const first = synced();
      await new Promise(setImmediate); // the first one's notification is on its way
      const seenAtResolution = await Promise.all([first, ...Array.from({ length: 49 }, synced)]);
      expect(seenAtResolution).toEqual(Array(50).fill(true));
      await listener.query('SELECT 1'); // the listener has read every notification sent before
      // The first went out at once; the other 49, called while it was on its way, share the next (one query on the
      // connection at a time).
      expect(sent).toHaveLength(2);
    } finally {
      await listener.end();
    }
  });

  test('after close, sync resolves false at once', async () => {
    const closed = new ChangeFeed(url, createLogger('silent'));
    await closed.start();
    expect(await closed.sync()).toBe(true);
    await closed.close();
    expect(await closed.sync()).toBe(false);
  });
});

describe('ChangeFeed.caughtUp', () => {
  test('fifty each resolve after a notification committed before them; those called during one round trip share the next', async () => {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    const client = (feed as unknown as { client: pg.Client }).client;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let queries = 0;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      queries++;
      return query(...args);
    };
    try {
      await other.query("NOTIFY change_feed_test, 'committed before the read'");
      const caughtUp = () => feed.caughtUp().then((done) => done && heard.includes('committed before the read'));
      const first = caughtUp();
      await new Promise(setImmediate); // the first one's round trip is on its way
      const seenAtResolution = await Promise.all([first, ...Array.from({ length: 49 }, caughtUp)]);
      expect(seenAtResolution).toEqual(Array(50).fill(true));
      expect(queries).toBe(2);
    } finally {
      delete (client as unknown as { query?: unknown }).query;
      await other.end();
    }
  });

  test('after close, caughtUp resolves false at once', async () => {
    const closed = new ChangeFeed(url, createLogger('silent'));
    await closed.start();
    expect(await closed.caughtUp()).toBe(true);
    await closed.close();
    expect(await closed.caughtUp()).toBe(false);
  });
});

describe('a listening connection that stops answering (its peer vanished without closing it)', () => {
  test('caughtUp and sync resolve false instead of waiting on it; the feed drops it and listens again', async () => {
    const link = await startSlowLink(url, 0);
    const silent = new ChangeFeed(link.url, createLogger('silent'), 50);
    try {
      await silent.start();
      expect(await silent.caughtUp()).toBe(true);
      link.hold(true);
      // Without a bound both would wait for an answer that never comes (and every cached read behind them).
      expect(await Promise.all([silent.caughtUp(), silent.sync(), silent.caughtUp()])).toEqual([false, false, false]);
      expect(silent.listening).toBe(false);
      link.hold(false);
      expect(await eventually(() => silent.listening, { timeoutMs: 10_000 })).toBe(true);
      expect(await silent.caughtUp()).toBe(true);
    } finally {
      await silent.close();
      await link.close();
    }
  });
});
