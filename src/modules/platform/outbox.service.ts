import type { Database, Tx } from '../../db/client.js';
import type { OutboxEmail, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../shared/ids.js';
import { paginate, type PageParams } from '../../shared/pagination.js';
import { getProject } from './projects.service.js';

export interface EmailInput {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text: string;
  html?: string | null;
  template: string;
  data: Record<string, unknown>;
  locale: string;
}

/** Records an e-mail in the project's outbox within the caller's transaction (addresses lowercased). */
export async function recordEmail(tx: Tx, projectId: string, email: EmailInput): Promise<OutboxEmail> {
  const lower = (addresses: string[] = []) => addresses.map((address) => address.toLowerCase());
  return tx.outboxEmail.create({
    data: {
      id: newId('email_'),
      projectId,
      to: lower(email.to),
      cc: lower(email.cc),
      bcc: lower(email.bcc),
      subject: email.subject,
      text: email.text,
      html: email.html ?? null,
      template: email.template,
      data: email.data as Prisma.InputJsonValue,
      locale: email.locale,
    },
  });
}

/** A page of the project's recorded e-mails, newest first, optionally only those to one address. */
export async function listOutbox(db: Database, projectId: string, query: PageParams & { to?: string }) {
  const { project } = await getProject(db, projectId);
  const where: Prisma.OutboxEmailWhereInput = { projectId, ...(query.to && { to: { has: query.to.toLowerCase() } }) };
  return paginate({
    secret: project.signingSecret,
    params: query,
    orderBy: { keys: [{ field: 'createdAt', kind: 'date' }], order: 'desc' },
    shape: { to: query.to?.toLowerCase() },
    count: () => db.outboxEmail.count({ where }),
    fetch: ({ after, orderBy, take }) =>
      db.outboxEmail.findMany({ where: after ? { AND: [where, after] } : where, orderBy, take }),
  });
}
