import { FairSlots } from './fair-slots';

describe(FairSlots.name, () => {
  let started: string[];

  const create = (slots: number, perOwner: number): FairSlots<string> =>
    new FairSlots<string>({ slots, perOwner }, (job) => started.push(job));

  beforeEach(() => {
    started = [];
  });

  it('should start calls at once while slots are free', () => {
    const sut = create(2, 2);
    sut.enqueue('alice', 'a1');
    sut.enqueue('alice', 'a2');
    expect(started).toEqual(['a1', 'a2']);
    expect(sut.runningCount).toBe(2);
  });

  it('should hold an owner at their cap while another owner gets the free slots', () => {
    const sut = create(3, 1);
    sut.enqueue('alice', 'a1');
    sut.enqueue('alice', 'a2');
    sut.enqueue('bob', 'b1');
    expect(started).toEqual(['a1', 'b1']);
    expect(sut.waitingCount).toBe(1);
    sut.release('alice');
    expect(started).toEqual(['a1', 'b1', 'a2']);
  });

  it('should hand freed slots to waiting owners in turn, not in arrival order', () => {
    const sut = create(1, 1);
    sut.enqueue('alice', 'a1');
    sut.enqueue('alice', 'a2');
    sut.enqueue('alice', 'a3');
    sut.enqueue('bob', 'b1');
    sut.enqueue('carol', 'c1');
    sut.release('alice');
    sut.release('alice');
    sut.release('bob');
    sut.release('carol');
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
  });

  it('should put a call queued first ahead of the other waiting calls of its owner', () => {
    const sut = create(1, 1);
    sut.enqueue('alice', 'a1');
    sut.enqueue('alice', 'a2');
    sut.enqueue('alice', 'retry', true);
    sut.release('alice');
    expect(started).toEqual(['a1', 'retry']);
  });

  it('should forget a removed call and report whether it was waiting', () => {
    const sut = create(1, 1);
    sut.enqueue('alice', 'a1');
    sut.enqueue('bob', 'b1');
    expect(sut.remove('bob', 'b1')).toBe(true);
    expect(sut.remove('alice', 'a1')).toBe(false);
    sut.release('alice');
    expect(started).toEqual(['a1']);
    expect(sut.runningCount).toBe(0);
  });

  it('should drain every waiting call', () => {
    const sut = create(1, 1);
    sut.enqueue('alice', 'a1');
    sut.enqueue('alice', 'a2');
    sut.enqueue('bob', 'b1');
    expect(sut.drain().sort()).toEqual(['a2', 'b1']);
    expect(sut.waitingCount).toBe(0);
  });
});
