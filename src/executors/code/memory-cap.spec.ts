import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { capDataGrowth, dataBytes } from './memory-cap';

const softDataLimit = (pid: number): string | undefined =>
  /^Max data size\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];

describe(capDataGrowth.name, () => {
  it('should set the soft data limit of a process to what it uses plus the growth allowed', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      const used = dataBytes(pid) ?? 0;

      const capped = await capDataGrowth(pid, 64);

      expect(capped).toBe(true);
      expect(used).toBeGreaterThan(0);
      expect(Number(softDataLimit(pid))).toBe(used + 64 * 1024 * 1024);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('should say so when there is no such process', async () => {
    await expect(capDataGrowth(2 ** 22 + 1, 64)).resolves.toBe(false);
  });
});
