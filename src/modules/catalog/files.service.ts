import type { Database } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { File } from '../../generated/prisma/client.js';
import { ownedOrNotFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';

type FileCreate = components['schemas']['FileCreate'];
export type FileResource = components['schemas']['File'];

/** A registered file as the API shows it. */
export function toFileResource(file: File): FileResource {
  return { id: file.id, filename: file.filename, mime_type: file.mimeType, size: file.size, url: file.url, created_at: file.createdAt.toISOString() };
}

/** Registers a file: an img_ id for image/* types, file_ otherwise. */
export async function createFile(db: Database, projectId: string, input: FileCreate): Promise<File> {
  const prefix = input.mime_type.startsWith('image/') ? 'img_' : 'file_';
  return db.file.create({
    data: { id: newId(prefix), projectId, filename: input.filename, mimeType: input.mime_type, size: input.size, url: input.url },
  });
}

/** The project's file; 404 "File not found." otherwise. */
export async function findFile(db: Database, projectId: string, id: string): Promise<File> {
  return ownedOrNotFound(await db.file.findUnique({ where: { id } }), projectId, 'File not found.');
}
