/**
 * Prisma's schema engine, compiled to WebAssembly, driven directly: the CLI only knows the native engine,
 * which cannot be downloaded here. Used to turn schema.prisma changes into migration SQL.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

const require = createRequire(import.meta.url);
const engineDir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));

interface SchemaEngine {
  diff(params: unknown): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
}

interface Glue {
  SchemaEngine: { new: (options: unknown, log: () => void, adapter: unknown) => Promise<SchemaEngine> };
}

// The glue module binds one WebAssembly instance; instantiating twice corrupts its state.
let glueLoaded: Promise<Glue> | undefined;

async function instantiateGlue(): Promise<Glue> {
  const glue = await import(path.join(engineDir, 'schema_engine_bg.js'));
  // Without this registry a panic's message is lost.
  (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message: (message: string) => console.error(`schema engine panic: ${message}`),
  };
  const imports: Record<string, unknown> = { ...glue };
  // The glue's advisory-lock timer is never cleared; unref it so the process can exit.
  for (const name of Object.keys(glue)) {
    if (name.startsWith('__wbg_setTimeout_')) {
      imports[name] = (callback: () => void, ms: number) => {
        const timer = setTimeout(callback, ms >>> 0);
        timer.unref();
        return timer;
      };
    }
  }
  const wasm = (
    globalThis as unknown as {
      WebAssembly: { instantiate(bytes: Buffer, imports: object): Promise<{ instance: { exports: object } }> };
    }
  ).WebAssembly;
  const { instance } = await wasm.instantiate(readFileSync(path.join(engineDir, 'schema_engine_bg.wasm')), {
    './schema_engine_bg.js': imports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  return glue as Glue;
}

async function loadEngine(url: string, datamodel: string): Promise<SchemaEngine> {
  const glue = await (glueLoaded ??= instantiateGlue());
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: url }));
  return glue.SchemaEngine.new({ datamodels: [['schema.prisma', datamodel]] }, () => {}, adapter);
}

/**
 * The SQL that turns a database shaped by `from` (a datamodel, or null for an empty database) into one
 * shaped by `to`. Empty when they agree. Needs a reachable PostgreSQL (the engine connects on start),
 * but reads and writes nothing in it.
 */
export async function diffDatamodels(url: string, from: string | null, to: string): Promise<string> {
  const engine = await loadEngine(url, to);
  try {
    const schema = (content: string) => ({ tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content }] });
    const result = await engine.diff({
      from: from === null ? { tag: 'empty' } : schema(from),
      to: schema(to),
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    engine.free();
  }
}
