import { describe, expect, test } from '@jest/globals';
import { SignJWT } from 'jose';
import { signAccessToken, tokenIssuer, verifyAccessToken } from '../../../src/modules/customer-auth/access-token.js';

const project = { id: 'proj_01jd5m3q7x9c2v4b6n8p0r1s2a', signingSecret: 'a-server-side-secret-of-the-project' };
const other = { id: 'proj_01jd5m3q7x9c2v4b6n8p0r1s2b', signingSecret: 'another-projects-secret' };
const claims = { customerId: 'cus_01jd5p0a2c4e6g8j0l2n4q6s8u', sessionId: 'sess_01jd5t0a2c4e6g8j0l2n4q6s8u' };
const ISSUER = 'https://api.example.com';

describe('access tokens', () => {
  test('carry iss, aud storefront, sub, pid, sid, jti, iat and exp one hour after iat, and verify back to their claims', async () => {
    const token = await signAccessToken(project, ISSUER, claims);
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
    expect(payload).toMatchObject({
      iss: ISSUER,
      aud: 'storefront',
      sub: claims.customerId,
      pid: project.id,
      sid: claims.sessionId,
    });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(await verifyAccessToken(project, ISSUER, token)).toEqual(claims);
    expect(await verifyAccessToken(project, undefined, token)).toEqual(claims);
  });

  test("another project's key, another issuer (when one is expected), a tampered payload or alg none are refused", async () => {
    const token = await signAccessToken(project, ISSUER, claims);
    expect(await verifyAccessToken(other, ISSUER, token)).toBeNull();
    expect(await verifyAccessToken(project, 'https://elsewhere.example.com', token)).toBeNull();
    const [head, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'cus_other', pid: project.id, sid: claims.sessionId })).toString(
      'base64url',
    );
    expect(await verifyAccessToken(project, ISSUER, `${head}.${forged}.${signature}`)).toBeNull();
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(await verifyAccessToken(project, ISSUER, none)).toBeNull();
  });

  test('a token signed with the raw project secret (not the derived key), or for another audience, is refused', async () => {
    const raw = await new SignJWT({ pid: project.id, sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience('storefront')
      .setSubject(claims.customerId)
      .setJti('j')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(project.signingSecret));
    expect(await verifyAccessToken(project, ISSUER, raw)).toBeNull();
  });

  test('tokenIssuer: PUBLIC_URL is written and required; without it the listening address is written and any issuer accepted', () => {
    expect(tokenIssuer({ publicUrl: 'https://api.shop.com', host: '127.0.0.1', port: 3000 })).toEqual({
      write: 'https://api.shop.com',
      expect: 'https://api.shop.com',
    });
    expect(tokenIssuer({ publicUrl: undefined, host: '127.0.0.1', port: 3000 })).toEqual({
      write: 'http://127.0.0.1:3000',
      expect: undefined,
    });
  });
});
