import type { components } from '../../generated/openapi.js';
import type { File } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import { findOwned } from '../../shared/owned.js';

type FileCreate = components['schemas']['FileCreate'];

/** Registers a file: an img_ id for image/* types, file_ otherwise. */
export async function createFile(ctx: Ctx, input: FileCreate): Promise<File> {
  const prefix = input.mime_type.startsWith('image/') ? 'img_' : 'file_';
  return ctx.db.file.create({
    data: {
      id: newId(prefix),
      projectId: ctx.project.id,
      filename: input.filename,
      mimeType: input.mime_type,
      size: input.size,
      url: input.url,
    },
  });
}

/** The project's file; 404 "File not found." otherwise. */
export async function findFile(ctx: Ctx, id: string): Promise<File> {
  return findOwned(ctx, ctx.db.file, id, 'File not found.');
}
