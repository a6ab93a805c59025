import { describe, expect, test } from '@jest/globals';
import { TtlCache } from '../../../src/modules/shipping/answer-cache.js';
import { CarrierGateway } from '../../../src/modules/shipping/carrier-gateway.js';
import { CircuitBreaker } from '../../../src/modules/shipping/circuit-breaker.js';
import { createLogger } from '../../../src/shared/logger.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('CircuitBreaker', () => {
  test('opens after 3 consecutive failures and skips calls for 60 s', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 2; i++) {
      expect(breaker.decide('p', 'z')).toBe('call');
      breaker.failure('p', 'z', 'call');
    }
    expect(breaker.state('p', 'z')).toBe('closed');
    expect(breaker.decide('p', 'z')).toBe('call');
    breaker.failure('p', 'z', 'call');
    expect(breaker.state('p', 'z')).toBe('open');
    expect(breaker.decide('p', 'z')).toBe('skip');
    time.advance(59_999);
    expect(breaker.decide('p', 'z')).toBe('skip');
  });

  test('a success in between resets the count: failures must be consecutive', () => {
    const breaker = new CircuitBreaker();
    breaker.failure('p', 'z', 'call');
    breaker.failure('p', 'z', 'call');
    breaker.success('p', 'z');
    breaker.failure('p', 'z', 'call');
    breaker.failure('p', 'z', 'call');
    expect(breaker.decide('p', 'z')).toBe('call');
  });

  test('after 60 s exactly one caller gets a trial, the others still skip; a successful trial closes the circuit', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('p', 'z', 'call');
    time.advance(60_000);
    expect(breaker.state('p', 'z')).toBe('half-open');
    expect(breaker.decide('p', 'z')).toBe('trial');
    expect(breaker.decide('p', 'z')).toBe('skip');
    expect(breaker.decide('p', 'z')).toBe('skip');
    breaker.success('p', 'z');
    expect(breaker.state('p', 'z')).toBe('closed');
    expect(breaker.decide('p', 'z')).toBe('call');
  });

  test('a failed trial opens the circuit for another 60 s at once (no three more failures needed)', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('p', 'z', 'call');
    time.advance(60_000);
    expect(breaker.decide('p', 'z')).toBe('trial');
    time.advance(5_000);
    breaker.failure('p', 'z', 'trial');
    expect(breaker.decide('p', 'z')).toBe('skip');
    time.advance(59_999);
    expect(breaker.decide('p', 'z')).toBe('skip');
    time.advance(1);
    expect(breaker.decide('p', 'z')).toBe('trial');
  });

  test('late failures of calls started before the circuit opened do not extend it', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('p', 'z', 'call');
    time.advance(30_000);
    breaker.failure('p', 'z', 'call');
    time.advance(30_000);
    expect(breaker.decide('p', 'z')).toBe('trial');
  });

  test('circuits are per key; the threshold and open time are settable', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ threshold: 1, openMs: 10, now: time.now });
    breaker.failure('p', 'a', 'call');
    expect(breaker.decide('p', 'a')).toBe('skip');
    expect(breaker.decide('p', 'b')).toBe('call');
    time.advance(10);
    expect(breaker.decide('p', 'a')).toBe('trial');
  });
});

describe('CarrierGateway: circuits per project, bounded', () => {
  test("a store changing a zone's callback URL to failing ones holds at most a quarter of the circuits; another store's open circuit stays open", async () => {
    const breaker = new CircuitBreaker({ maxCircuits: 8 });
    const resolved = new Map<string, number>();
    // Every callback resolves to a private address, refused before any connection: each call fails at once.
    const gateway = new CarrierGateway({
      breaker,
      resolve: (hostname) => {
        resolved.set(hostname, (resolved.get(hostname) ?? 0) + 1);
        return Promise.resolve([{ address: '10.0.0.1', family: 4 }]);
      },
    });
    const call = (projectId: string, zoneId: string, url: string) =>
      gateway.rates({
        projectId,
        zoneId,
        url,
        body: '{}',
        currency: 'USD',
        requestId: 'req',
        log: createLogger('silent'),
        allowPrivate: false,
      });
    for (let i = 0; i < 4; i++) expect(await call('quiet', 'zone-q', 'https://quiet.example/rates')).toEqual([]);
    expect(resolved.get('quiet.example')).toBe(3); // open after three failures: the fourth was skipped
    for (let n = 0; n < 100; n++) await call('busy', 'zone-b', `https://busy.example/rates/${n}`);
    expect(breaker.size).toBe(3); // the quiet store's one and the busy store's latest two (a quarter of 8)
    expect(await call('quiet', 'zone-q', 'https://quiet.example/rates')).toEqual([]);
    expect(resolved.get('quiet.example')).toBe(3); // still open: skipped, no call
    // The busy store's live circuit behaves as before: its third failure opens it.
    const latest = 'https://busy.example/rates/99';
    for (let i = 0; i < 2; i++) await call('busy', 'zone-b', latest);
    expect(breaker.state('busy', `zone-b ${latest}`)).toBe('open');
  });

  test('circuits are per project: the same key of another project is closed', () => {
    const breaker = new CircuitBreaker({ threshold: 1 });
    breaker.failure('p', 'z', 'call');
    expect(breaker.decide('p', 'z')).toBe('skip');
    expect(breaker.decide('q', 'z')).toBe('call');
  });
});

describe('TtlCache', () => {
  test('answers a value for ttlMs, then forgets it', () => {
    const time = clock();
    const cache = new TtlCache<number>({ ttlMs: 60_000, maxEntries: 10, now: time.now });
    cache.set('p', 'k', 1);
    time.advance(59_999);
    expect(cache.get('p', 'k')).toBe(1);
    time.advance(1);
    expect(cache.get('p', 'k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('keeps at most maxEntries, evicting the least recently used; setting a key again renews it', () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    cache.set('p1', 'a', 'A');
    cache.set('p2', 'b', 'B');
    cache.set('p1', 'a', 'A2');
    cache.set('p3', 'c', 'C');
    expect([cache.get('p1', 'a'), cache.get('p2', 'b'), cache.get('p3', 'c')]).toEqual(['A2', undefined, 'C']);
    expect(cache.size).toBe(2);
  });

  test("a project holds at most a quarter of the entries: its own least recently used go, never another's", () => {
    const cache = new TtlCache<number>({ ttlMs: 60_000, maxEntries: 8 });
    cache.set('quiet', 'k', 0);
    for (let n = 0; n < 8; n++) cache.set('busy', `k${n}`, n);
    expect(cache.get('quiet', 'k')).toBe(0);
    expect([0, 1, 2, 3, 4, 5].map((n) => cache.get('busy', `k${n}`))).toEqual(Array(6).fill(undefined));
    expect([cache.get('busy', 'k6'), cache.get('busy', 'k7')]).toEqual([6, 7]);
    expect(cache.get('busy', 'k')).toBeUndefined(); // keys are per project
  });
});
