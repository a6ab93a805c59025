import { createHmac } from 'node:crypto';
import type { Ctx } from '../../shared/context.js';

/**
 * Who searched, as the search log stores it: an HMAC-SHA256 (keyed with the project's signing secret, which
 * never leaves the database) of the signed-in customer's id, otherwise of the client's address. Distinct
 * values count distinct clients; the address itself is never stored, and the hash of one project says nothing
 * in another. Undefined when there is no client (background work).
 */
export function searchClientHash(ctx: Ctx, clientAddress: string | undefined): string | undefined {
  const who =
    ctx.actor.kind === 'customer' ? `customer:${ctx.actor.id}` : clientAddress ? `address:${clientAddress}` : undefined;
  if (!who) return undefined;
  return createHmac('sha256', ctx.project.signingSecret).update(`search-client|${who}`).digest('hex').slice(0, 32);
}
