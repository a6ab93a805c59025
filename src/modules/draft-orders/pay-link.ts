/** Pay links of sent drafts (openapi.yaml, the checkouts tag, "Pay links"): pure signing and checking. */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Project } from '../../generated/prisma/client.js';

type Signer = Pick<Project, 'id' | 'signingSecret'>;

// The project's pay-link key, derived from its server-side secret with HKDF (info names the use), so pay tokens
// share no key with access tokens or cursors and no second secret has to be stored or rotated apart.
const payLinkKey = (project: Signer) =>
  Buffer.from(hkdfSync('sha256', project.signingSecret, project.id, 'draft-pay-link/v1', 32));

const signatureOf = (project: Signer, draftId: string) =>
  createHmac('sha256', payLinkKey(project)).update(draftId).digest();

/** The pay token of a draft: `{draft id}.{HMAC-SHA256 of the id, base64url}`. */
export function payToken(project: Signer, draftId: string): string {
  return `${draftId}.${signatureOf(project, draftId).toString('base64url')}`;
}

/** The draft id a pay token names when its signature is the project's (compared in constant time); null otherwise. */
export function draftIdOfPayToken(project: Signer, token: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const draftId = token.slice(0, dot);
  // Compared as text, not decoded: base64url decoding ignores trailing bits, which would let altered tokens pass.
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(signatureOf(project, draftId).toString('base64url'));
  return given.length === expected.length && timingSafeEqual(given, expected) ? draftId : null;
}

/** The pay link of a draft (the storefront's pay page), only for a project with a verified domain. */
export function payUrlOf(project: Signer & Pick<Project, 'domain' | 'domainVerified'>, draftId: string): string | null {
  return project.domain && project.domainVerified
    ? `https://${project.domain}/checkout/${draftId}?token=${encodeURIComponent(payToken(project, draftId))}`
    : null;
}
