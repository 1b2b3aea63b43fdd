// The root-CA publisher (kube-controller-manager's root-ca-cert-publisher,
// renamed): every namespace has a `platform-root-ca.crt` ConfigMap whose
// `ca.crt` is the CA clients should trust for this server. Driven by two
// watches: a namespace that appears (or changes) and that config map being
// edited or deleted queue the namespace; syncing one reads both fresh and
// creates or repairs the map (admission/defaults.ts rootCaRepair decides). A
// namespace that is gone or terminating is left alone. Idempotent. One way to
// start (run(signal)), stopped by the abort; nothing runs after.
import { isAlreadyExists, isApiError, isNotFound } from '../../api/errors.js';
import { rootCaRepair } from '../admission/defaults.js';
import { ROOT_CA_CONFIGMAP } from '../admission/serviceaccount.js';
import type { ApiObject, WriteOptions } from '../registry/types.js';
import { runWatchLoop, type WatchSource } from './watch-loop.js';
import type { ControllerLog } from './csr-controller.js';
import { WorkQueue } from './work-queue.js';

/** The parts of the namespaces and configmaps stores the publisher uses. */
export interface ObjectStore extends WatchSource {
  get(namespace: string, name: string): Promise<ApiObject>;
  create(namespace: string, body: ApiObject, opts?: WriteOptions): Promise<ApiObject>;
  update(namespace: string, name: string, body: ApiObject): Promise<unknown>;
}

export interface RootCaPublisherDeps {
  namespaces: ObjectStore;
  configMaps: ObjectStore;
  /** The CA bundle (PEM) published as ca.crt. */
  caPem: string;
  log: ControllerLog;
}

const terminating = (ns: ApiObject): boolean => ns.metadata.deletionTimestamp !== undefined || (ns.status as { phase?: unknown } | undefined)?.phase === 'Terminating';

export class RootCaPublisher {
  readonly #d: RootCaPublisherDeps;

  constructor(deps: RootCaPublisherDeps) {
    this.#d = deps;
  }

  async run(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((ns) => this.sync(ns), this.#d.log);
    await Promise.all([
      queue.run(signal),
      runWatchLoop(this.#d.namespaces, (type, obj) => {
        if (type !== 'DELETED') queue.add(obj.metadata.name ?? '');
      }, this.#d.log, signal),
      runWatchLoop(this.#d.configMaps, (type, obj) => {
        // Upstream reacts to updates and deletes of the map; an ADDED one is checked as well (a client's own create).
        if (obj.metadata.name === ROOT_CA_CONFIGMAP) queue.add(obj.metadata.namespace ?? '');
      }, this.#d.log, signal),
    ]);
  }

  /** Creates or repairs the namespace's map. Idempotent; throws to be retried. */
  async sync(namespace: string): Promise<void> {
    if (namespace === '') return;
    const ns = await this.#getOrUndefined(this.#d.namespaces, '', namespace);
    if (ns === undefined || terminating(ns)) return;
    const existing = await this.#getOrUndefined(this.#d.configMaps, namespace, ROOT_CA_CONFIGMAP);
    const plan = rootCaRepair(existing, namespace, this.#d.caPem);
    try {
      if (plan.action === 'create') await this.#d.configMaps.create(namespace, plan.object as unknown as ApiObject);
      if (plan.action === 'update') await this.#d.configMaps.update(namespace, ROOT_CA_CONFIGMAP, plan.object);
    } catch (e) {
      // A namespace removed or terminating meanwhile, or a concurrent create: nothing to do (its own event requeues).
      if (isNotFound(e) || isAlreadyExists(e) || (isApiError(e) && e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') === true)) return;
      throw e;
    }
  }

  async #getOrUndefined(store: ObjectStore, namespace: string, name: string): Promise<ApiObject | undefined> {
    try {
      return await store.get(namespace, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}
