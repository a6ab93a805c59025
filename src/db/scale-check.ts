import pg from 'pg';
import { CONSTRAINTS, TABLES } from './scale-check.sql.js';

/**
 * Distribution readiness for PostgreSQL's distributed engine for multi-tenant SaaS (Citus), every tenant's rows
 * on one node: each table distributed by `project_id` (`projects` by its `id`), colocated. docs/scale-out.md
 * says why each rule holds and the order of the migrations that meet them.
 */

/** Tables that stay on the coordinator, not distributed: platform bookkeeping written by every process. */
export const COORDINATOR_TABLES = new Set(['_prisma_migrations', 'job_worker_heartbeats']);

/** One table's or constraint's problem. */
export interface ScaleProblem {
  table: string;
  /** The constraint, index or trigger concerned; absent for the table itself. */
  object?: string;
  problem: string;
}

interface TableRow {
  name: string;
  columns: string[];
  triggers: string[];
}
interface ConstraintRow {
  table: string;
  name: string;
  kind: 'p' | 'u' | 'i' | 'f';
  columns: string[] | null;
  references: string | null;
  referencedColumns: string[] | null;
}

/** The distribution column of a distributed table, or undefined when it has none (yet). */
const distributionColumn = (table: TableRow): string | undefined =>
  table.name === 'projects' ? 'id' : table.columns.includes('project_id') ? 'project_id' : undefined;

/** Everything in the database at `url` that is not distribution-ready, tables in name order. */
export async function scaleProblems(url: string): Promise<ScaleProblem[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (await client.query<TableRow>(TABLES)).rows.filter((table) => !COORDINATOR_TABLES.has(table.name));
    const constraints = (await client.query<ConstraintRow>(CONSTRAINTS)).rows;
    return tables.flatMap((table) =>
      problemsOf(
        table,
        constraints.filter((row) => row.table === table.name),
        tables,
      ),
    );
  } finally {
    await client.end();
  }
}

/** One table's problems: its distribution column, its keys, its foreign keys, its triggers. */
function problemsOf(table: TableRow, constraints: ConstraintRow[], tables: TableRow[]): ScaleProblem[] {
  const column = distributionColumn(table);
  const problems: ScaleProblem[] = [];
  if (!column) problems.push({ table: table.name, problem: 'no project_id column to distribute by' });
  const kinds = { p: 'primary key', u: 'unique constraint', i: 'unique index' } as const;
  for (const row of constraints) {
    const columns = row.columns ?? [];
    if (row.kind !== 'f') {
      if (!column || !columns.includes(column))
        problems.push({
          table: table.name,
          object: row.name,
          problem: `${kinds[row.kind]} (${columns.join(', ')}) without ${column ?? 'project_id'}`,
        });
      continue;
    }
    const target = tables.find((other) => other.name === row.references);
    const targetColumn = target && distributionColumn(target);
    if (!target) {
      problems.push({
        table: table.name,
        object: row.name,
        problem: `foreign key to ${row.references}, which stays on the coordinator`,
      });
    } else if (!column || !targetColumn || (row.referencedColumns ?? [])[columns.indexOf(column)] !== targetColumn) {
      // Colocated: the referencing distribution column meets the referenced one, position for position.
      problems.push({
        table: table.name,
        object: row.name,
        problem: `foreign key (${columns.join(', ')}) -> ${row.references} (${(row.referencedColumns ?? []).join(', ')}) not on the distribution column`,
      });
    }
  }
  for (const trigger of table.triggers)
    problems.push({
      table: table.name,
      object: trigger,
      problem: 'trigger (runs on the worker nodes: its NOTIFY would not reach the change feed)',
    });
  return problems;
}

/** The report `npm run scale:check` prints: one line per problem, then the count of tables concerned. */
export function scaleReport(problems: ScaleProblem[]): string {
  const lines = problems.map((p) => `${p.table}${p.object ? ` ${p.object}` : ''}: ${p.problem}`);
  const tables = new Set(problems.map((p) => p.table)).size;
  return `${lines.join('\n')}\n${problems.length} problems in ${tables} tables\n`;
}
