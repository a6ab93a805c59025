import type { Tx } from '../db/client.js';

/** The per-project sequences. */
export type CounterName = 'draft_number' | 'order_number' | 'metafield_key';

/**
 * The next number of a per-project sequence (`first` for the first one). The counter row stays locked
 * until the transaction ends, so concurrent callers wait for each other and a rolled-back transaction
 * gives its number back: the numbers of committed rows have no gaps.
 */
export async function nextNumber(tx: Tx, projectId: string, name: CounterName, first: number): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ value: number }>>`
    INSERT INTO project_counters (project_id, name, value) VALUES (${projectId}, ${name}, ${first})
    ON CONFLICT (project_id, name) DO UPDATE SET value = project_counters.value + 1
    RETURNING value`;
  return row.value;
}
