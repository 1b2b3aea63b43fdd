// The registry of platform-apiserver: one generic store per served resource
// (every verb once, see store.ts), the resource table discovery is built
// from, the namespace lifecycle, and the pod operations (binding, eviction).
// Built once by the composition root; the HTTP handlers look stores up by
// group and resource. Holds no timers; its only background work is the
// watch of a store's cache (lister.ts), started by the first lookup through
// `cached()` (admission, the RBAC authorizer) and ended by stopping the
// storage, so stopping the server is stopping the storage.
import { apiErrors, type GroupResource, type Status } from '../../api/errors.js';
import type { Storage } from '../storage/interface.js';
import { DEFAULT_STORE_OPTIONS, type StoreHooks, type StoreOptions } from './context.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { bindPod, evictPod } from './resources/pod-subresources.js';
import { BUILTIN_STRATEGIES, servedResources } from './resources/index.js';
import { GenericStore } from './store.js';
import type { ApiObject, Clock, DeleteOptions, DeleteResult, ObjectList, ResourceInfo, StorageCodec, Strategy, WriteOptions } from './types.js';

export interface RegistryConfig {
  storage: Storage;
  codec: StorageCodec;
  clock?: Clock;
  options?: Partial<StoreOptions>;
  /** Strategies served (default: the built-in ones); resources of later sessions are added here. */
  strategies?: readonly Strategy[];
  /**
   * Resources served by handlers of their own rather than a store (token
   * reviews, access reviews): listed in discovery, gated like the others.
   */
  virtualResources?: readonly ResourceInfo[];
  /** Feature gates deciding which gated resources are served. */
  featureGates?: Readonly<Record<string, boolean>>;
}

/** Namespaces answer DELETE through the namespace lifecycle; every other verb is generic. */
class NamespaceStore extends GenericStore {
  lifecycle: NamespaceLifecycle | undefined;

  override delete(_namespace: string, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    if (this.lifecycle === undefined) return super.delete('', name, opts);
    return this.lifecycle.delete(name, opts);
  }

  /** Namespaces are deleted one by one, through their lifecycle (upstream serves no deletecollection for them). */
  override deleteCollection(): Promise<ObjectList> {
    return Promise.reject(apiErrors.methodNotSupported({ group: '', resource: 'namespaces' }, 'deletecollection'));
  }
}

export interface Registry {
  /** The resource table, in discovery order. */
  readonly resources: readonly ResourceInfo[];
  /** The store of a served resource, or undefined (404). */
  store(gr: GroupResource): GenericStore | undefined;
  readonly namespaces: NamespaceLifecycle;
  /** POST pods/<name>/binding. */
  bindPod(namespace: string, name: string, binding: ApiObject, opts?: WriteOptions): Promise<Status>;
  /** POST pods/<name>/eviction. */
  evictPod(namespace: string, name: string, eviction: ApiObject, opts?: WriteOptions): Promise<Status>;
}

const grKey = (gr: GroupResource): string => `${gr.resource}.${gr.group}`;

export function createRegistry(config: RegistryConfig): Registry {
  const clock = config.clock ?? { now: Date.now };
  const options: StoreOptions = { ...DEFAULT_STORE_OPTIONS, ...config.options };
  const strategies = config.strategies ?? BUILTIN_STRATEGIES;
  const served = servedResources(strategies, config.featureGates);
  const virtual = (config.virtualResources ?? []).filter((r) => r.featureGate === undefined || config.featureGates?.[r.featureGate] === true);
  const resources = [...served, ...virtual];
  const stores = new Map<string, GenericStore>();
  const namespaced: GenericStore[] = [];
  let lifecycle: NamespaceLifecycle | undefined;
  for (const strategy of strategies) {
    if (!served.includes(strategy.info)) continue;
    const hooks: StoreHooks = {};
    if (strategy.info.namespaced) {
      hooks.admitCreate = (obj) => lifecycle?.admitCreate(obj, { group: strategy.info.group, resource: strategy.info.resource }) ?? Promise.resolve();
      hooks.removed = (obj) => lifecycle?.contentRemoved(obj.metadata.namespace ?? '') ?? Promise.resolve();
    }
    const ctx = { storage: config.storage, codec: config.codec, clock, strategy, options, hooks };
    const store = strategy.info.resource === 'namespaces' && strategy.info.group === '' ? new NamespaceStore(ctx) : new GenericStore(ctx);
    stores.set(grKey(strategy.info), store);
    if (strategy.info.namespaced) namespaced.push(store);
  }
  const nsStore = stores.get(grKey({ group: '', resource: 'namespaces' }));
  if (!(nsStore instanceof NamespaceStore)) throw new Error('the registry needs the namespaces resource');
  lifecycle = new NamespaceLifecycle(nsStore, () => namespaced, clock);
  nsStore.lifecycle = lifecycle;
  const pods = (): GenericStore => {
    const s = stores.get(grKey({ group: '', resource: 'pods' }));
    if (s === undefined) throw new Error('pods are not served');
    return s;
  };
  return {
    resources,
    store: (gr) => stores.get(grKey(gr)),
    namespaces: lifecycle,
    bindPod: (namespace, name, binding, opts) => bindPod(pods(), namespace, name, binding, opts),
    evictPod: (namespace, name, eviction, opts) => evictPod(pods(), namespace, name, eviction, opts),
  };
}

/** The store of a resource the composition root knows is served; throws (a wiring bug) when it is not. */
export function requireStore(registry: Registry, gr: GroupResource): GenericStore {
  const s = registry.store(gr);
  if (s === undefined) throw new Error(`${gr.resource}.${gr.group} is not served`);
  return s;
}

export { GenericStore, type UpdateResult, type TryUpdate } from './store.js';
export { DEFAULT_STORE_OPTIONS, type StoreOptions } from './context.js';
export { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
export { buildTable, parseIncludeObject, type IncludeObject, type Table } from './table.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './store-watch.js';
export { IMMORTAL_NAMESPACES, SYSTEM_NAMESPACES, type NamespaceLifecycle } from './namespace-lifecycle.js';
export { BUILTIN_STRATEGIES } from './resources/index.js';
export type * from './types.js';
export { jsonStorageCodec } from './json-codec.js';
