import type { JobDefinition } from '../../shared/job-definition.js';
import { deliverOutboxEmail } from './mailer.js';

/** Delivers an outbox e-mail over SMTP_URL; enqueued in the transaction that records the e-mail. */
export const sendEmailJob: JobDefinition<'send-email'> = {
  // SMTP servers refuse for a while (greylisting, restarts): retry 5 times, 30 s doubling to ~8 min.
  queue: { retryLimit: 5, retryDelay: 30, retryBackoff: true },
  handle: async (deps, payload) => {
    if (!deps.config.smtpUrl) {
      deps.log.warn('send-email job without SMTP_URL; the e-mail stays in the outbox only', {
        email_id: payload.emailId,
      });
      return;
    }
    const sent = await deliverOutboxEmail(deps.db, deps.config.smtpUrl, payload.emailId);
    deps.log.info(sent ? 'e-mail sent over SMTP' : 'e-mail to send no longer exists', { email_id: payload.emailId });
  },
};
