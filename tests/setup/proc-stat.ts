import { readFileSync, readdirSync } from 'node:fs';

/**
 * Fields of /proc/<pid>/stat after the command name (which may hold spaces): the state is the 1st, the parent the
 * 2nd, utime to cstime the 12th to 15th (clock ticks of 10 ms). Throws when the process is gone or off Linux.
 */
export const statFields = (pid: number | string): string[] =>
  readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');

/**
 * The CPU time (user + system, ms) process `pid` has used so far, from /proc (Linux; undefined elsewhere or when
 * the process is gone). CPU per request moves far less with the machine's load than requests per second do.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = statFields(pid!);
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
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
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let total: number | undefined;
  const pending = [pid!];
  while (pending.length > 0) {
    const next = pending.pop()!;
    try {
      const fields = statFields(next);
      total =
        (total ?? 0) +
        ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
      pending.push(...(children.get(next) ?? []));
    } catch {
      // gone meanwhile (or `pid` itself: then undefined)
    }
  }
  return total;
}
