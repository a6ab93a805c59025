import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { areaOf, snapshot, stale, statementsOf } from '../../../codegen/sql-snapshot.js';

const root = path.resolve(import.meta.dirname, '../../..');

const SERVICE = `
import { AppError } from '../../shared/errors.js';
export async function purge(tx: Tx, projectId: string) {
  await tx.$executeRaw\`
    DELETE FROM things
    WHERE project_id = \${projectId}\`;
  throw new AppError('conflict', 'SELECT a different thing.');
}
export class Feed {
  async start(client: pg.Client) {
    await client.query('LISTEN things');
  }
}
const label = 'Select the rows';
`;

const BUILDER = `
const byId = preparedStatement('thing_by_id', \`SELECT \${selectList(FIELDS)} FROM things WHERE id = $1\`);
export const thingList = sqlList('things', 'things', FIELDS);
function order(desc: boolean) {
  return desc ? ' ORDER BY id DESC' : ' ORDER BY id';
}
`;

// Where hand-written SQL may live (docs/architecture.md, "One way to the database per kind of work"): the SQL files of
// an area, session control in src/db/ and on the LISTEN connections, and the kit's helpers and builders.
const SQL_HOME = /\.(sql|statements?|list)\.ts$/;
const SESSION_AND_KIT = [
  'src/db/',
  'src/shared/change-feed.ts',
  'src/shared/counters.ts',
  'src/shared/handles.ts',
  'src/shared/sql-json.ts',
  'src/shared/sql-list.ts',
  'src/shared/write.ts',
  'src/modules/webhook-queue/wake-listener.ts',
];
// The areas listed under "Known exceptions, to converge later" there.
const KNOWN_EXCEPTIONS = new Set([
  'search',
  'orders',
  'draft-orders',
  'checkouts',
  'inventory',
  'customer-auth',
  'http',
  'health-docs',
  'seed',
]);

/** Every .ts file of src/ outside src/generated/, as git lists it. */
const sourceFiles = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && !file.startsWith('src/generated/'));

describe('npm run sql:snapshot', () => {
  test('a file belongs to its folder of src/modules/, else to its top-level folder of src/', () => {
    expect(areaOf('src/modules/webhooks/deliver.ts')).toBe('webhooks');
    expect(areaOf('src/db/migrate.ts')).toBe('db');
    expect(areaOf('src/main.ts')).toBe('main');
  });

  test('tagged raw SQL and query texts are headed by their file and function; messages and prose are not SQL', () => {
    const found = statementsOf('src/modules/things/things.service.ts', SERVICE);
    expect(found.map(({ owner, text }) => [owner, text])).toEqual([
      ['purge', 'DELETE FROM things\nWHERE project_id = ${projectId}'],
      ['Feed.start', 'LISTEN things'],
    ]);
  });

  test("a builder file's statements, fixed fragments and builder calls are all kept, in source order", () => {
    const found = statementsOf('src/modules/things/things.statements.ts', BUILDER);
    expect(found.map(({ owner, text }) => [owner, text])).toEqual([
      ['byId', 'SELECT ${selectList(FIELDS)} FROM things WHERE id = $1'],
      ['thingList', "-- built by:\n--   sqlList('things', 'things', FIELDS)"],
      ['order', 'ORDER BY id DESC'],
      ['order', 'ORDER BY id'],
    ]);
  });

  test('the snapshot is the same on every run, one file per area', () => {
    const first = snapshot();
    expect([...snapshot()]).toEqual([...first]);
    expect([...first.keys()]).toContain('webhooks.sql');
    expect(first.get('webhooks.sql')).toMatch(/^-- src\/modules\/webhooks\/\S+\.ts: \w+/m);
  });

  test('outside the known exceptions, hand-written SQL lives in the SQL files of its area, src/db/ or the kit', () => {
    const strays = sourceFiles()
      .filter((file) => !SQL_HOME.test(file) && !SESSION_AND_KIT.some((home) => file.startsWith(home)))
      .filter((file) => !KNOWN_EXCEPTIONS.has(areaOf(file)))
      .flatMap((file) => statementsOf(file, readFileSync(path.join(root, file), 'utf8')))
      .map(({ file, owner, text }) => `${file}: ${owner}: ${text.split('\n')[0]}`);
    expect(strays).toEqual([]);
  });

  describe('--check', () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'sql-snapshot-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    test('the committed sql/ is up to date with src/', () => {
      expect(stale(snapshot())).toEqual([]);
    });

    test('a changed statement, a missing area and a left-over file are each reported', () => {
      const files = snapshot();
      for (const name of readdirSync(path.join(root, 'sql')))
        writeFileSync(path.join(scratch, name), readFileSync(path.join(root, 'sql', name)));
      writeFileSync(path.join(scratch, 'webhooks.sql'), files.get('webhooks.sql')!.replace('UPDATE', 'update'));
      rmSync(path.join(scratch, 'usage.sql'));
      writeFileSync(path.join(scratch, 'gone.sql'), '-- an area without statements\n');
      expect(stale(files, scratch)).toEqual(['sql/gone.sql', 'sql/usage.sql', 'sql/webhooks.sql']);
    });
  });
});
