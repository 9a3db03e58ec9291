import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 10 ms. */
export const TICK_MS = 10;
const PAGE_BYTES = 4096;

export interface ProcessUsage {
  /** User + system CPU time the process has used, in ms. */
  cpuMs: number;
  /** Resident memory, in bytes. */
  rssBytes: number;
}

/** What /proc says a process uses now; undefined when it is gone (or this is not Linux). */
export const processUsage = (pid: number): ProcessUsage | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    const rssBytes = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
    return Number.isFinite(cpuMs) && Number.isFinite(rssBytes) ? { cpuMs, rssBytes } : undefined;
  } catch {
    return undefined;
  }
};

/** The first child of a process (the runtime an `unshare --fork` started), if it has one yet. */
export const firstChildPid = (pid: number): number | undefined => {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    const first = Number(children.split(' ')[0]);
    return Number.isInteger(first) && first > 0 ? first : undefined;
  } catch {
    return undefined;
  }
};
