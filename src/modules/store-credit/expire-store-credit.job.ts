import type { JobDefinition } from '../../shared/job-definition.js';
import { expireStoreCredit } from './store-credit.expiry.js';

/** Every minute: what is left of credit past its expiry is removed (openapi.yaml, the store-credit tag). */
export const expireStoreCreditJob: JobDefinition<'expire-store-credit'> = {
  schedule: '* * * * *',
  handle: async (deps) => {
    const expired = await expireStoreCredit(deps);
    if (expired > 0) deps.log.info('expired store credit', { job: 'expire-store-credit', expired });
  },
};
