import { readFileSync } from 'node:fs';

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
