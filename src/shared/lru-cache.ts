/** A small least-recently-used map; `onEvict` lets owners release what the evicted value holds. */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('LruCache capacity must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The keys, least recently used first. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const [oldestKey, oldestValue] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldestKey);
      this.onEvict?.(oldestKey, oldestValue);
    }
  }

  delete(key: K): void {
    if (!this.entries.has(key)) return;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.onEvict?.(key, value);
  }

  clear(): void {
    for (const [key, value] of this.entries) this.onEvict?.(key, value);
    this.entries.clear();
  }
}
