import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { scaleProblems, scaleReport } from '../../../src/db/scale-check.js';
import { createTestDatabase } from '../../setup/database.js';

const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

describe('npm run scale:check (distribution readiness by project_id)', () => {
  test('on a schema of its own: tenant-keyed keys and colocated foreign keys pass; each kind of problem is named', async () => {
    const database = await createTestDatabase('template0');
    drops.push(database.drop);
    const client = new pg.Client({ connectionString: database.directUrl });
    await client.connect();
    await client.query(`
      CREATE TABLE projects (id text PRIMARY KEY, domain text UNIQUE);
      CREATE TABLE products (project_id text REFERENCES projects, id text, sku text,
        PRIMARY KEY (project_id, id), UNIQUE (project_id, sku));
      CREATE TABLE variants (project_id text, id text, product_id text, PRIMARY KEY (project_id, id),
        FOREIGN KEY (project_id, product_id) REFERENCES products (project_id, id));
      CREATE TABLE notes (id text PRIMARY KEY, product_id text, project_id text,
        FOREIGN KEY (project_id, product_id) REFERENCES products (project_id, id));
      CREATE TABLE addresses (id text PRIMARY KEY, note_id text REFERENCES notes);
      CREATE UNIQUE INDEX variants_one ON variants (product_id) WHERE id = 'x';
      CREATE FUNCTION nothing() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER products_changed AFTER INSERT ON products FOR EACH STATEMENT EXECUTE FUNCTION nothing();
    `);
    await client.end();
    expect(scaleReport(await scaleProblems(database.directUrl))).toBe(
      [
        'addresses: no project_id column to distribute by',
        'addresses addresses_note_id_fkey: foreign key (note_id) -> notes (id) not on the distribution column',
        'addresses addresses_pkey: primary key (id) without project_id',
        'notes notes_pkey: primary key (id) without project_id',
        'products products_changed: trigger (runs on the worker nodes: its NOTIFY would not reach the change feed)',
        'projects projects_domain_key: unique constraint (domain) without id',
        'variants variants_one: unique index (product_id) without project_id',
        '7 problems in 5 tables',
        '',
      ].join('\n'),
    );
  });

  test('on the migrated schema: the listing is the one docs/scale-out.md gives', async () => {
    const database = await createTestDatabase();
    drops.push(database.drop);
    const guide = readFileSync(path.resolve(import.meta.dirname, '../../../docs/scale-out.md'), 'utf8');
    const listed = /<!-- npm run scale:check -->\n```\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(scaleReport(await scaleProblems(database.directUrl))).toBe(listed);
  });
});
