import type { CustomerNote } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findCustomer } from './customers.service.js';

/** The customer's notes, newest first. */
export async function listNotes(ctx: Ctx, customerId: string): Promise<CustomerNote[]> {
  await findCustomer(ctx, ctx.db, customerId);
  return ctx.db.customerNote.findMany({ where: { customerId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** Adds a note authored by the calling API key. */
export async function createNote(ctx: Ctx, customerId: string, content: string): Promise<CustomerNote> {
  if (ctx.actor.kind !== 'api_key')
    throw new AppError('internal_error', `Notes are written with an API key, not by a ${ctx.actor.kind}.`);
  await findCustomer(ctx, ctx.db, customerId);
  return ctx.db.customerNote.create({
    data: { id: newId('cnote_'), customerId, content, authorType: 'api_key', authorId: ctx.actor.id },
  });
}

/** Deletes a note of the customer; 404 "Note not found." when it is not one of its notes. */
export async function deleteNote(ctx: Ctx, customerId: string, noteId: string): Promise<void> {
  await findCustomer(ctx, ctx.db, customerId);
  const { count } = await ctx.db.customerNote.deleteMany({ where: { id: noteId, customerId } });
  if (count === 0) throw notFound('Note not found.');
}
