import type { Transporter } from 'nodemailer';
import type { Database } from '../../db/client.js';
import type { OutboxEmail } from '../../generated/prisma/client.js';

const transports = new Map<string, Promise<Transporter>>();

// One transport per SMTP URL for the process (nodemailer opens a connection per message); nodemailer itself is
// loaded with the first, so a process that sends no e-mail does not load it.
function transportFor(smtpUrl: string): Promise<Transporter> {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** The sender of a project's e-mails: its name, at its domain (or localhost while it has none). */
export function senderOf(project: { name: string; domain: string | null }): { name: string; address: string } {
  return { name: project.name, address: `noreply@${project.domain ?? 'localhost'}` };
}

/**
 * Sends a recorded outbox e-mail through the SMTP server of `smtpUrl` (`smtp://` or `smtps://`, with
 * credentials in the URL). Bcc recipients get the message through the envelope only, never as a header.
 */
export async function sendOverSmtp(
  smtpUrl: string,
  from: { name: string; address: string },
  email: OutboxEmail,
): Promise<void> {
  const transport = await transportFor(smtpUrl);
  await transport.sendMail({
    from,
    to: email.to,
    cc: email.cc.length ? email.cc : undefined,
    bcc: email.bcc.length ? email.bcc : undefined,
    subject: email.subject,
    text: email.text,
    html: email.html ?? undefined,
    headers: { 'X-Outbox-Id': email.id },
  });
}

/**
 * Sends one recorded e-mail of the outbox over `smtpUrl` (the send-email job; pg-boss retries it when
 * this throws). An e-mail that no longer exists (its project was deleted) is skipped.
 */
export async function deliverOutboxEmail(db: Database, smtpUrl: string, emailId: string): Promise<boolean> {
  const email = await db.outboxEmail.findUnique({
    where: { id: emailId },
    include: { project: { select: { name: true, domain: true } } },
  });
  if (!email) return false;
  const { project, ...row } = email;
  await sendOverSmtp(smtpUrl, senderOf(project), row);
  return true;
}
