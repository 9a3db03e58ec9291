import { runEach } from './item-scheduler';

/** Work whose items end when the test says so: `started` in start order, `end(index)` ends one. */
function controlledWork() {
  const started: number[] = [];
  const enders = new Map<number, () => void>();
  let running = 0;
  let mostAtOnce = 0;
  const work = (index: number) =>
    new Promise<void>((resolve) => {
      started.push(index);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      enders.set(index, () => {
        running--;
        resolve();
      });
    });
  const end = async (index: number) => {
    enders.get(index)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, work, end, mostAtOnce: () => mostAtOnce };
}

describe(runEach.name, () => {
  it('should start the items in order, at most concurrency at once, the next as soon as one ends', async () => {
    const { started, work, end, mostAtOnce } = controlledWork();
    const done = runEach([0, 1, 2, 3, 4], 2, work);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    await end(1);
    expect(started).toEqual([0, 1, 2]);
    for (const index of [0, 2, 3, 4]) await end(index);
    await done;
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(mostAtOnce()).toBe(2);
  });

  it('should start no more items once stopped, and wait for those running', async () => {
    const { started, work, end } = controlledWork();
    let stop = false;
    const done = runEach([5, 6, 7, 8], 2, work, () => stop);
    await new Promise((resolve) => setImmediate(resolve));
    stop = true;
    await end(5);
    let settled = false;
    void done.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await end(6);
    await done;
    expect(started).toEqual([5, 6]);
  });

  it('should reject with the first failure after the other items ended', async () => {
    const ended: number[] = [];
    const work = async (index: number) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (index === 0) throw new Error('item 0 broke');
      ended.push(index);
    };
    await expect(runEach([0, 1, 2], 3, work)).rejects.toThrow('item 0 broke');
    expect(ended).toEqual([1, 2]);
  });
});
