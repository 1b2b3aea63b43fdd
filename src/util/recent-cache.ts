// A small cache of the most recent values derived from shared objects: what
// many readers of the same event stream compute once instead of each (the
// API server's watchers decoding and serialising the same change). Keyed by
// object identity; bounded by count, oldest first out, so it holds only the
// recent past and never grows with history.
export class RecentCache<K extends object, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly capacity = 4096) {}

  get(key: K, make: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
    return value;
  }
}
