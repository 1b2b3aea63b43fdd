// The informer's indexed local store (client-go's threadSafeStore + indexer):
// objects by key (`namespace/name` or `name`), index values → keys, and the
// version the store reflects. It holds the decoded objects as the reflector
// got them (no copies: the memory target is ≤ 2 KB per small pod) and
// recomputes an object's index values from the object itself on removal, so
// it keeps no per-object index bookkeeping. Written only by the reflector's
// dispatch (one writer, synchronous); read by anyone through InformerStore.
import type { ApiObject, InformerStore } from '../types.js';
import { nameOf, namespaceOf, resourceVersionOf } from '../meta.js';

export type IndexFn = (obj: ApiObject) => readonly string[];

export { nameOf, namespaceOf, resourceVersionOf };

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKey(obj: ApiObject): string {
  const ns = namespaceOf(obj);
  return ns === '' ? nameOf(obj) : `${ns}/${nameOf(obj)}`;
}

/** The index every informer has. */
export const NAMESPACE_INDEX = 'namespace';
const byNamespace: IndexFn = (obj) => [namespaceOf(obj)];

export class UnknownIndexError extends Error {
  readonly index: string;
  constructor(index: string, known: readonly string[]) {
    super(`informer store: no index ${JSON.stringify(index)} (indexes: ${known.join(', ')})`);
    this.name = 'UnknownIndexError';
    this.index = index;
  }
}

export class IndexedStore implements InformerStore {
  private readonly items = new Map<string, ApiObject>();
  private readonly indexFns: ReadonlyMap<string, IndexFn>;
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private rv = '';

  /** `onIndexError` hears of an index function that threw (the object is then not in that index). */
  constructor(
    indexes: Readonly<Record<string, IndexFn>>,
    private readonly onIndexError: (index: string, err: unknown) => void,
  ) {
    const fns = new Map<string, IndexFn>([[NAMESPACE_INDEX, byNamespace]]);
    for (const [name, fn] of Object.entries(indexes)) fns.set(name, fn);
    this.indexFns = fns;
    for (const name of fns.keys()) this.indices.set(name, new Map());
  }

  get size(): number {
    return this.items.size;
  }

  get resourceVersion(): string {
    return this.rv;
  }

  get(key: string): ApiObject | undefined {
    return this.items.get(key);
  }

  list(): ApiObject[] {
    return [...this.items.values()];
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  byIndex(index: string, value: string): ApiObject[] {
    const idx = this.indices.get(index);
    if (idx === undefined) throw new UnknownIndexError(index, [...this.indexFns.keys()]);
    const keys = idx.get(value);
    if (keys === undefined) return [];
    const out: ApiObject[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  /** Puts `obj` under `key`; returns what was there. */
  set(key: string, obj: ApiObject): ApiObject | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    if (old === undefined) this.index(key, obj);
    else this.reindex(key, old, obj);
    return old;
  }

  /** Removes `key`; returns what was there. */
  delete(key: string): ApiObject | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  setResourceVersion(rv: string): void {
    this.rv = rv;
  }

  private values(name: string, fn: IndexFn, obj: ApiObject): readonly string[] {
    try {
      return fn(obj);
    } catch (err) {
      this.onIndexError(name, err);
      return [];
    }
  }

  /** An update: index entries change only where the values did (most updates change none: no Set churn per event). */
  private reindex(key: string, old: ApiObject, obj: ApiObject): void {
    for (const [name, fn] of this.indexFns) {
      const idx = this.indices.get(name)!;
      const before = this.values(name, fn, old);
      const after = this.values(name, fn, obj);
      if (before.length === after.length && before.every((v, i) => v === after[i])) continue;
      this.remove(idx, key, before);
      this.add(idx, key, after);
    }
  }

  private add(idx: Map<string, Set<string>>, key: string, values: readonly string[]): void {
    for (const v of values) {
      let set = idx.get(v);
      if (set === undefined) idx.set(v, (set = new Set()));
      set.add(key);
    }
  }

  private remove(idx: Map<string, Set<string>>, key: string, values: readonly string[]): void {
    for (const v of values) {
      const set = idx.get(v);
      if (set === undefined) continue;
      set.delete(key);
      if (set.size === 0) idx.delete(v);
    }
  }

  private index(key: string, obj: ApiObject): void {
    for (const [name, fn] of this.indexFns) this.add(this.indices.get(name)!, key, this.values(name, fn, obj));
  }

  private unindex(key: string, obj: ApiObject): void {
    for (const [name, fn] of this.indexFns) this.remove(this.indices.get(name)!, key, this.values(name, fn, obj));
  }
}
