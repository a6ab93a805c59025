import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';

/** The message of every customer-auth operation while the project has no domain, as openapi.yaml words it. */
export const STORE_DOMAIN_REQUIRED = 'Store domain must be configured to use customer auth.';

/** Customer auth needs a domain on the project (links in e-mails point to it); 400 invalid_request otherwise. */
export function requireStoreDomain(ctx: Pick<Ctx, 'project'>): void {
  if (!ctx.project.domain) throw new AppError('invalid_request', STORE_DOMAIN_REQUIRED);
}
