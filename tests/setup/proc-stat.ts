import { readFileSync, readdirSync } from 'node:fs';

/**
 * Fields of /proc/<pid>/stat after the command name (which may hold spaces): the state is the 1st, the parent the
 * 2nd, utime to cstime the 12th to 15th (clock ticks of 10 ms). Throws when the process is gone or off Linux.
 */
export const statFields = (pid: number | string): string[] =>
  readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');

/** Milliseconds of the first `count` CPU fields of `fields` from utime on (2: its own; 4: with its waited-for children). */
const cpuMsOf = (fields: string[], count: 2 | 4): number =>
  (fields.slice(11, 11 + count).reduce((sum, ticks) => sum + Number(ticks), 0) * 1000) / 100;

/**
 * The CPU time (user + system, ms) process `pid` has used so far, from /proc (Linux; undefined elsewhere or when
 * the process is gone). CPU per request moves far less with the machine's load than requests per second do.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  try {
    return cpuMsOf(statFields(pid!), 2);
  } catch {
    return undefined;
  }
}

/**
 * The CPU time (ms) process `pid` and its descendants have used so far: every living one's own time and the time of
 * the children each has waited for (Linux; undefined when `pid` is gone). For a process that works through others
 * (npm through the server, the server through initdb, a postmaster through its backends).
 */
export function treeCpuMs(pid: number | undefined): number | undefined {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(statFields(entry)[1]);
      const siblings = children.get(parent) ?? [];
      siblings.push(Number(entry));
      children.set(parent, siblings);
    } catch {
      // gone meanwhile
    }
  }
  let total: number | undefined;
  const pending = [pid!];
  while (pending.length > 0) {
    const next = pending.pop()!;
    try {
      total = (total ?? 0) + cpuMsOf(statFields(next), 4);
      pending.push(...(children.get(next) ?? []));
    } catch {
      // gone meanwhile (or `pid` itself: then undefined)
    }
  }
  return total;
}
