import { LruCache } from './lru-cache';

describe(LruCache.name, () => {
  it('should evict the least recently used entry and report it', () => {
    const evicted: string[] = [];
    const sut = new LruCache<string, number>(2, (key) => evicted.push(key));
    sut.set('a', 1);
    sut.set('b', 2);
    sut.get('a');

    sut.set('c', 3);

    expect(evicted).toEqual(['b']);
    expect(sut.get('a')).toBe(1);
    expect(sut.get('b')).toBeUndefined();
  });

  it('should forget a deleted entry and report it', () => {
    const evicted: string[] = [];
    const sut = new LruCache<string, number>(2, (key) => evicted.push(key));
    sut.set('a', 1);

    sut.delete('a');
    sut.delete('missing');

    expect(sut.get('a')).toBeUndefined();
    expect(evicted).toEqual(['a']);
  });

  it('should refuse a non-positive capacity', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
