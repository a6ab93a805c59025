import type { Database } from '../../db/client.js';
import type { CustomerNote } from '../../generated/prisma/client.js';
import type { KeyCaller } from '../../http/contract.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findCustomer } from './customers.service.js';

/** The customer's notes, newest first. */
export async function listNotes(db: Database, caller: KeyCaller, customerId: string): Promise<CustomerNote[]> {
  await findCustomer(db, caller.project.id, customerId);
  return db.customerNote.findMany({ where: { customerId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** Adds a note authored by the calling API key. */
export async function createNote(db: Database, caller: KeyCaller, customerId: string, content: string): Promise<CustomerNote> {
  await findCustomer(db, caller.project.id, customerId);
  return db.customerNote.create({
    data: { id: newId('cnote_'), customerId, content, authorType: 'api_key', authorId: caller.key.id },
  });
}

/** Deletes a note of the customer; 404 "Note not found." when it is not one of its notes. */
export async function deleteNote(db: Database, caller: KeyCaller, customerId: string, noteId: string): Promise<void> {
  await findCustomer(db, caller.project.id, customerId);
  const { count } = await db.customerNote.deleteMany({ where: { id: noteId, customerId } });
  if (count === 0) throw notFound('Note not found.');
}
