// A registry over the memory store with a JSON codec and a settable clock,
// and helpers to read watch streams with a bound (no sleeps: each wait ends
// on the next event or on its own timer, which is always cleared).
import { createMemoryStorage } from '../../../../src/apiserver/storage/memory.js';
import type { Storage } from '../../../../src/apiserver/storage/interface.js';
import { createRegistry, jsonStorageCodec, type GenericStore, type Registry, type StoreOptions } from '../../../../src/apiserver/registry/index.js';
import type { ApiObject, WatchEvent } from '../../../../src/apiserver/registry/types.js';

export interface Fixture {
  storage: Storage;
  registry: Registry;
  clock: { now(): number; t: number };
  store(resource: string, group?: string): GenericStore;
  close(): Promise<void>;
}

export async function fixture(options: Partial<StoreOptions> = {}, namespaces: readonly string[] = ['ns1']): Promise<Fixture> {
  const clock = { t: Date.parse('2026-01-01T00:00:00Z'), now(): number { return this.t; } };
  const storage = createMemoryStorage({ now: () => clock.t });
  const registry = createRegistry({ storage, codec: jsonStorageCodec, clock, options: { futureRevisionWaitMs: 50, ...options } });
  const store = (resource: string, group = ''): GenericStore => {
    const s = registry.store({ group, resource });
    if (s === undefined) throw new Error(`no store for ${resource}`);
    return s;
  };
  for (const name of namespaces) await store('namespaces').create('', { metadata: { name } });
  return { storage, registry, clock, store, close: () => storage.close() };
}

export const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
  data,
});

export const pod = (name: string, extra: { nodeName?: string; labels?: Record<string, string> } = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(extra.labels === undefined ? {} : { labels: extra.labels }) },
  spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], ...(extra.nodeName === undefined ? {} : { nodeName: extra.nodeName }) },
});

/** The next `n` events, failing after `ms` without them. */
export async function take(events: AsyncIterable<WatchEvent>, n: number, ms = 2_000): Promise<WatchEvent[]> {
  const it = events[Symbol.asyncIterator]();
  const out: WatchEvent[] = [];
  while (out.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${out.length} of ${n} events: ${JSON.stringify(out.map((e) => e.type))}`)), ms);
    });
    try {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done === true) break;
      out.push(r.value);
    } finally {
      clearTimeout(timer);
    }
  }
  return out;
}

/** An iterator kept open across several `take`s. */
export function reader(events: AsyncIterable<WatchEvent>): { take(n: number, ms?: number): Promise<WatchEvent[]> } {
  const it = events[Symbol.asyncIterator]();
  const once: AsyncIterable<WatchEvent> = { [Symbol.asyncIterator]: () => it };
  return { take: (n, ms) => take(once, n, ms) };
}

export const names = (events: readonly WatchEvent[]): string[] => events.map((e) => `${e.type} ${e.type === 'ERROR' ? e.object.message : (e.object.metadata.name ?? '')}`);

/** The rejection of `p` (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string; [k: string]: unknown }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; reason: string; message: string };
  }
  throw new Error('expected a rejection');
}
