import { createHmac } from 'node:crypto';
import { clientNetwork } from '../../shared/client-network.js';
import type { Ctx } from '../../shared/context.js';

/** Hashes remembered at most (per process); past that the memo starts afresh. */
const MEMO_SIZE = 2_000;
// Recent hashes by project and client: an HMAC took about 3 % of the CPU of cached searches (bench/README.md, the
// search log's cost), and a client searches again and again (as they type, page and filter). Each entry keeps the secret it was computed with, so a
// rotated secret is never answered with an old hash.
const memo = new Map<string, { secret: string; hash: string }>();

/**
 * Who searched, as the search log stores it: an HMAC-SHA256 (keyed with the project's signing secret, which
 * never leaves the database) of the signed-in customer's id, otherwise of the client's address (an IPv6 address:
 * its network, `clientNetwork`, so one visitor changing addresses stays one client). Distinct values count distinct
 * clients; the address itself is never stored, and the hash of one project says nothing in another. Undefined when there is no client (background work).
 */
export function searchClientHash(ctx: Ctx, clientAddress: string | undefined): string | undefined {
  const who =
    ctx.actor.kind === 'customer'
      ? `customer:${ctx.actor.id}`
      : clientAddress
        ? `address:${clientNetwork(clientAddress)}`
        : undefined;
  if (!who) return undefined;
  const secret = ctx.project.signingSecret;
  const key = `${ctx.project.id}|${who}`;
  const known = memo.get(key);
  if (known && known.secret === secret) return known.hash;
  const hash = createHmac('sha256', secret).update(`search-client|${who}`).digest('hex').slice(0, 32);
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, { secret, hash });
  return hash;
}
