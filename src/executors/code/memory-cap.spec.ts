import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { sleep } from '../../shared/sleep';
import { capDataGrowth, dataBytes } from './memory-cap';

const softDataLimit = (pid: number): string | undefined =>
  /^Max data size\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];

describe(capDataGrowth.name, () => {
  it('should set the soft data limit of a process to what it uses plus the growth allowed', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      await once(child, 'spawn');
      // The new process maps its libraries after exec: read its data size once that has settled.
      let used = dataBytes(pid) ?? 0;
      for (let before = -1; used !== before; used = dataBytes(pid) ?? 0) {
        before = used;
        await sleep(50);
      }

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
