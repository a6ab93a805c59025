import { describe, expect, it } from '@jest/globals';
import { VerifiedTokens } from '../../../src/shared/verified-tokens.js';

const inAnHour = () => Date.now() + 3_600_000;

/** A verifier that counts its calls and proves `value` until `expiresAtMs`, or fails. */
function verifier(value: string | null, expiresAtMs = inAnHour()) {
  const calls = { count: 0 };
  const verify = () => {
    calls.count++;
    return Promise.resolve(value === null ? null : { value, expiresAtMs });
  };
  return { calls, verify };
}

describe('VerifiedTokens', () => {
  it('verifies a token once and answers it from memory until it expires', async () => {
    const tokens = new VerifiedTokens<string>(10);
    const { calls, verify } = verifier('customer-1');
    expect(await tokens.get('project-a', 'scope', 'token-1', verify)).toBe('customer-1');
    expect(await tokens.get('project-a', 'scope', 'token-1', verify)).toBe('customer-1');
    expect(calls.count).toBe(1);
    expect([tokens.hits, tokens.misses]).toEqual([1, 1]);
  });

  it('never remembers a token that failed verification', async () => {
    const tokens = new VerifiedTokens<string>(10);
    const { calls, verify } = verifier(null);
    expect(await tokens.get('project-a', 'scope', 'forged', verify)).toBeNull();
    expect(await tokens.get('project-a', 'scope', 'forged', verify)).toBeNull();
    expect(calls.count).toBe(2);
  });

  it('verifies again once the remembered token has expired', async () => {
    const tokens = new VerifiedTokens<string>(10);
    const { calls, verify } = verifier('customer-1', Date.now() + 30);
    await tokens.get('project-a', 'scope', 'token-1', verify);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await tokens.get('project-a', 'scope', 'token-1', verify);
    expect(calls.count).toBe(2);
  });

  it('keeps scopes apart: a token verified for one project is verified again for another', async () => {
    const tokens = new VerifiedTokens<string>(10);
    const first = verifier('customer-1');
    const second = verifier(null);
    expect(await tokens.get('project-a', 'scope', 'token-1', first.verify)).toBe('customer-1');
    expect(await tokens.get('project-b', 'scope', 'token-1', second.verify)).toBeNull();
    expect(second.calls.count).toBe(1);
  });

  it('holds at most its bound, dropping the least recently used token first', async () => {
    const tokens = new VerifiedTokens<string>(2);
    const { calls, verify } = verifier('customer-1');
    await tokens.get('p1', 'scope', 'one', verify);
    await tokens.get('p2', 'scope', 'two', verify);
    await tokens.get('p1', 'scope', 'one', verify); // "two" is now the least recently used
    await tokens.get('p3', 'scope', 'three', verify);
    expect(calls.count).toBe(3);
    await tokens.get('p1', 'scope', 'one', verify);
    expect(calls.count).toBe(3);
    await tokens.get('p2', 'scope', 'two', verify);
    expect(calls.count).toBe(4);
  });

  it("one project's tokens never push another project's out: a project holds at most a quarter of the bound", async () => {
    const tokens = new VerifiedTokens<string>(8);
    const quiet = verifier('customer-q');
    await tokens.get('project-quiet', 'scope', 'token-q', quiet.verify);
    const busy = verifier('customer-b');
    for (let n = 0; n < 8; n++) await tokens.get('project-busy', 'scope', `token-${n}`, busy.verify);
    expect(await tokens.get('project-quiet', 'scope', 'token-q', quiet.verify)).toBe('customer-q');
    expect(quiet.calls.count).toBe(1);
  });
});
