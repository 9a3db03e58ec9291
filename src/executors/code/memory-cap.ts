import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MIB = 1024 * 1024;

/** The process's data segment (VmData: its private writable memory, what RLIMIT_DATA bounds), in bytes. */
export const dataBytes = (pid: number): number | undefined => {
  try {
    const match = /^VmData:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Lets the process `pid` grow its data segment by at most `memoryMb` MiB from now: sets its soft RLIMIT_DATA (with
 * util-linux's `prlimit`) to what it uses plus that. Past it the kernel refuses the mapping; a WebAssembly memory
 * (Pyodide's heap) then fails to grow and Python raises MemoryError, where sampling /proc could only kill the
 * process after the allocation was made. False when the limit could not be set (no prlimit, no /proc).
 */
export function capDataGrowth(pid: number, memoryMb: number): Promise<boolean> {
  const used = dataBytes(pid);
  if (used === undefined) return Promise.resolve(false);
  const limit = used + memoryMb * MIB;
  return new Promise((resolve) => {
    execFile('prlimit', ['--pid', String(pid), `--data=${limit}:`], { timeout: 5000 }, (error) => resolve(!error));
  });
}
