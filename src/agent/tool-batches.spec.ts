import { runToolBatches, toToolBatches } from './tool-batches';

const isReadOnly = (name: string): boolean => name.startsWith('read');

describe(toToolBatches.name, () => {
  it('should group consecutive concurrent items and keep every other item alone', () => {
    const batches = toToolBatches(['read1', 'read2', 'write1', 'write2', 'read3'], isReadOnly);
    expect(batches).toEqual([
      { concurrent: true, items: ['read1', 'read2'] },
      { concurrent: false, items: ['write1'] },
      { concurrent: false, items: ['write2'] },
      { concurrent: true, items: ['read3'] },
    ]);
  });
});

describe(runToolBatches.name, () => {
  const deferred = () => {
    let resolve: () => void = () => undefined;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };

  it('should start every item of a concurrent batch before any of them finishes', async () => {
    const events: string[] = [];
    const gates = { read1: deferred(), read2: deferred() };
    const results = runToolBatches(['read1', 'read2'], isReadOnly, async (item) => {
      events.push(`start ${item}`);
      if (item === 'read1') gates.read2.resolve();
      await gates[item as 'read1' | 'read2'].promise;
      if (item === 'read2') gates.read1.resolve();
      events.push(`end ${item}`);
      return item;
    });
    await expect(results).resolves.toEqual(['read1', 'read2']);
    expect(events.slice(0, 2)).toEqual(['start read1', 'start read2']);
  });

  it('should run non-concurrent items strictly one after another', async () => {
    const events: string[] = [];
    await runToolBatches(['write1', 'write2'], isReadOnly, async (item) => {
      events.push(`start ${item}`);
      await new Promise((resolve) => setImmediate(resolve));
      events.push(`end ${item}`);
    });
    expect(events).toEqual(['start write1', 'end write1', 'start write2', 'end write2']);
  });

  it('should return results in item order when later items finish first', async () => {
    const results = await runToolBatches(['read-slow', 'read-fast'], isReadOnly, async (item) => {
      if (item === 'read-slow') await new Promise((resolve) => setImmediate(resolve));
      return item.toUpperCase();
    });
    expect(results).toEqual(['READ-SLOW', 'READ-FAST']);
  });
});
