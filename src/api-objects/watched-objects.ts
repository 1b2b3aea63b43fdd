// The kubelet's watch-based object manager for one namespaced resource type
// (ConfigMaps, Secrets): each object some registered pod references gets one
// informer restricted to it (`fieldSelector=metadata.name=<name>`, which the
// node authorizer allows for objects of the node's pods), shared by every pod
// using it and stopped when the last of them unregisters. `get` answers from
// that informer once it has listed, and with a GET otherwise. Called from the
// pod workers (get) and the pod source (setPod/removePod), never blocking in
// the latter; `run` owns every informer and returns only once all stopped.
import type { ApiClient, ApiObject, Informer, ResourceType } from '../client/index.js';
import { createInformer } from '../client/informer/index.js';
import { isNotFound } from '../api/errors.js';
import type { AgentLogger } from '../log/index.js';

interface Entry {
  readonly informer: Informer;
  readonly pods: Set<string>;
  stop?: AbortController;
  done?: Promise<void>;
}

const keyOf = (ns: string, name: string): string => `${ns}/${name}`;

export class WatchedObjects {
  readonly #entries = new Map<string, Entry>();
  readonly #podKeys = new Map<string, Set<string>>();
  readonly #running = new Set<Promise<void>>();
  #signal: AbortSignal | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly type: ResourceType,
    private readonly log: AgentLogger,
  ) {}

  /** The objects (`ns/name` keys) pod `uid` references now; what no pod references any more stops being watched. */
  setPod(uid: string, ns: string, names: Iterable<string>): void {
    const want = new Set([...names].map((n) => keyOf(ns, n)));
    const had = this.#podKeys.get(uid) ?? new Set<string>();
    for (const key of want) {
      if (had.has(key)) continue;
      const entry = this.#entries.get(key) ?? this.#add(key, ns, key.slice(ns.length + 1));
      entry.pods.add(uid);
    }
    for (const key of had) if (!want.has(key)) this.#release(key, uid);
    if (want.size === 0) this.#podKeys.delete(uid);
    else this.#podKeys.set(uid, want);
  }

  removePod(uid: string): void {
    this.setPod(uid, '', []);
  }

  /** How many objects are watched now (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  /** The object from its synced informer, else from a GET; undefined when it does not exist. */
  async get(ns: string, name: string, signal: AbortSignal): Promise<ApiObject | undefined> {
    const entry = this.#entries.get(keyOf(ns, name));
    if (entry?.informer.hasSynced()) return entry.informer.store.get(keyOf(ns, name));
    try {
      return await this.client.rest.resource(this.type, ns).get(name, { signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Runs the informers (those registered before too) until `signal` aborts; resolves once every one has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    for (const e of this.#entries.values()) this.#start(e);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    for (const e of this.#entries.values()) e.stop?.abort();
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  #add(key: string, ns: string, name: string): Entry {
    const informer = createInformer(this.client.rest.resource(this.type, ns), { log: this.log, fieldSelector: `metadata.name=${name}`, omitManagedFields: true });
    const entry: Entry = { informer, pods: new Set() };
    this.#entries.set(key, entry);
    if (this.#signal !== undefined && !this.#signal.aborted) this.#start(entry);
    return entry;
  }

  #start(entry: Entry): void {
    if (entry.stop !== undefined) return;
    entry.stop = new AbortController();
    const done = entry.informer.run(entry.stop.signal).catch((e: unknown) => {
      this.log.warn('A watch of a referenced object ended with an error', { resource: this.type.resource, err: e });
    });
    const tracked = done.finally(() => this.#running.delete(tracked));
    this.#running.add(tracked);
    entry.done = tracked;
  }

  #release(key: string, uid: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.pods.delete(uid);
    if (entry.pods.size > 0) return;
    this.#entries.delete(key);
    entry.stop?.abort();
  }
}
