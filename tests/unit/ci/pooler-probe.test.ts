import { describe, expect, test } from '@jest/globals';
import { coveringFiles } from '../../setup/pooler-cover.js';
import { poolerSensitiveStatement } from '../../setup/pooler-probe.js';

// .ci/run runs behind PgBouncer only the files whose statements this rule calls pooler-sensitive.
describe('poolerSensitiveStatement: what puts a test file in the PgBouncer pass', () => {
  test.each([
    ['a named prepared statement', { name: 'customer_by_id', text: 'SELECT 1' }],
    ['a session SET', 'SET statement_timeout = 1000'],
    ['a session RESET', { text: 'RESET ALL' }],
    ['set_config for the session', "SELECT set_config('search_path', 'x', false)"],
    ['a session advisory lock', 'SELECT pg_advisory_lock(42)'],
    ['a tried session advisory lock', 'SELECT pg_try_advisory_lock(1, 2)'],
    ['PREPARE', 'PREPARE p AS SELECT 1'],
    ['DISCARD', 'DISCARD ALL'],
    ['a cursor WITH HOLD', 'DECLARE c CURSOR WITH HOLD FOR SELECT 1'],
    ['a temporary table', 'CREATE TEMP TABLE t (id int)'],
    ['lastval()', 'SELECT lastval()'],
  ])('%s is', (_what, config) => {
    expect(poolerSensitiveStatement(config)).toBeDefined();
  });

  test.each([
    ['an unnamed statement', { text: 'SELECT * FROM customers WHERE id = $1', values: ['c'] }],
    ['an empty name', { name: '', text: 'SELECT 1' }],
    ['SET LOCAL', 'SET LOCAL statement_timeout = 1000'],
    ['SET TRANSACTION', 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'],
    ['set_config for the transaction', "SELECT set_config('app.x', 'y', true)"],
    ['a transaction advisory lock', 'SELECT pg_advisory_xact_lock(42)'],
    ['LISTEN (always on the session URL)', 'LISTEN table_changed'],
    ['a column named like a keyword', 'SELECT reset_at, prepared FROM t'],
    ['no text at all', undefined],
  ])('%s is not', (_what, config) => {
    expect(poolerSensitiveStatement(config)).toBeUndefined();
  });
});

describe('poolerSensitiveStatement: one key per statement, whatever its layout', () => {
  test('a named statement is its text, whitespace folded; a SET is its text', () => {
    expect(poolerSensitiveStatement({ name: 'customer_by_id', text: 'SELECT *\n  FROM customers WHERE id = $1' })).toBe(
      'SELECT * FROM customers WHERE id = $1',
    );
    expect(poolerSensitiveStatement('SET statement_timeout = 1000')).toBe('SET statement_timeout = 1000');
    expect(poolerSensitiveStatement({ text: 'SELECT 1' })).toBeUndefined();
  });
});

describe('coveringFiles: the files .ci/run runs again behind PgBouncer', () => {
  const line = (path: string, seconds: number, statement: string) => `${path}\t${seconds}\t${statement}`;

  test('every recorded statement is run by some chosen file', () => {
    const lines = [
      line('a.test.ts', 1, 's1'),
      line('a.test.ts', 1, 's2'),
      line('b.test.ts', 1, 's2'),
      line('c.test.ts', 1, 's3'),
      '',
    ];
    expect(coveringFiles(lines)).toEqual(['a.test.ts', 'c.test.ts']);
  });

  test('of two files with the same statements, the quicker one is chosen', () => {
    const lines = [line('slow.test.ts', 40, 's1'), line('slow.test.ts', 40, 's2'), line('quick.test.ts', 2, 's1')];
    lines.push(line('quick.test.ts', 2, 's2'));
    expect(coveringFiles(lines)).toEqual(['quick.test.ts']);
  });

  test('a statement only a slow file runs still brings that file in', () => {
    const lines = [line('slow.test.ts', 40, 's1'), line('slow.test.ts', 40, 's9'), line('quick.test.ts', 2, 's1')];
    expect(coveringFiles(lines)).toEqual(['slow.test.ts']);
  });

  test('nothing recorded, nothing chosen', () => {
    expect(coveringFiles([''])).toEqual([]);
  });
});
