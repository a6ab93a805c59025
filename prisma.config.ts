import { defineConfig } from 'prisma/config';

// Offline: the native schema engine cannot be downloaded, so the CLI gets a stub that fails loudly.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= new URL('./codegen/no-schema-engine.sh', import.meta.url).pathname;

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
