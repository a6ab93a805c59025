import { describe, expect, test } from '@jest/globals';
import { TtlCache } from '../../../src/modules/shipping/answer-cache.js';
import { CircuitBreaker } from '../../../src/modules/shipping/circuit-breaker.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('CircuitBreaker', () => {
  test('opens after 3 consecutive failures and skips calls for 60 s', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 2; i++) {
      expect(breaker.decide('z')).toBe('call');
      breaker.failure('z', 'call');
    }
    expect(breaker.state('z')).toBe('closed');
    expect(breaker.decide('z')).toBe('call');
    breaker.failure('z', 'call');
    expect(breaker.state('z')).toBe('open');
    expect(breaker.decide('z')).toBe('skip');
    time.advance(59_999);
    expect(breaker.decide('z')).toBe('skip');
  });

  test('a success in between resets the count: failures must be consecutive', () => {
    const breaker = new CircuitBreaker();
    breaker.failure('z', 'call');
    breaker.failure('z', 'call');
    breaker.success('z');
    breaker.failure('z', 'call');
    breaker.failure('z', 'call');
    expect(breaker.decide('z')).toBe('call');
  });

  test('after 60 s exactly one caller gets a trial, the others still skip; a successful trial closes the circuit', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('z', 'call');
    time.advance(60_000);
    expect(breaker.state('z')).toBe('half-open');
    expect(breaker.decide('z')).toBe('trial');
    expect(breaker.decide('z')).toBe('skip');
    expect(breaker.decide('z')).toBe('skip');
    breaker.success('z');
    expect(breaker.state('z')).toBe('closed');
    expect(breaker.decide('z')).toBe('call');
  });

  test('a failed trial opens the circuit for another 60 s at once (no three more failures needed)', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('z', 'call');
    time.advance(60_000);
    expect(breaker.decide('z')).toBe('trial');
    time.advance(5_000);
    breaker.failure('z', 'trial');
    expect(breaker.decide('z')).toBe('skip');
    time.advance(59_999);
    expect(breaker.decide('z')).toBe('skip');
    time.advance(1);
    expect(breaker.decide('z')).toBe('trial');
  });

  test('late failures of calls started before the circuit opened do not extend it', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ now: time.now });
    for (let i = 0; i < 3; i++) breaker.failure('z', 'call');
    time.advance(30_000);
    breaker.failure('z', 'call');
    time.advance(30_000);
    expect(breaker.decide('z')).toBe('trial');
  });

  test('circuits are per key; the threshold and open time are settable', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ threshold: 1, openMs: 10, now: time.now });
    breaker.failure('a', 'call');
    expect(breaker.decide('a')).toBe('skip');
    expect(breaker.decide('b')).toBe('call');
    time.advance(10);
    expect(breaker.decide('a')).toBe('trial');
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
