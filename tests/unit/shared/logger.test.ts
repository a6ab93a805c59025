import { Writable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { createLogger } from '../../../src/shared/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createLogger', () => {
  test('writes {time, level, message, ...fields} JSON lines at or above its level', () => {
    const { stream, lines } = capture();
    const log = createLogger('info', stream);
    log.debug('not written');
    log.info('request', { method: 'GET', status: 200 });
    log.error('boom');
    expect(lines().map(({ time, ...rest }) => [typeof time, rest])).toEqual([
      ['string', { level: 'info', message: 'request', method: 'GET', status: 200 }],
      ['string', { level: 'error', message: 'boom' }],
    ]);
    expect(new Date(lines()[0].time as string).toISOString()).toBe(lines()[0].time);
  });

  test('redacts fields named like secrets, also one level down', () => {
    const { stream, lines } = capture();
    createLogger('info', stream).warn('oops', {
      token: 'sk_test_x',
      headers: { authorization: 'Bearer sk_test_x' },
      keep: 'me',
    });
    expect(lines()[0]).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]' }, keep: 'me' });
    expect(JSON.stringify(lines())).not.toContain('sk_test_x');
  });

  test('silent writes nothing', () => {
    const { stream, lines } = capture();
    createLogger('silent', stream).error('nothing');
    expect(lines()).toEqual([]);
  });
});
