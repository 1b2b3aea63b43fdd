// createInformer: a list-then-watch cache of one ListerWatcher (client-go's
// reflector + indexer + handler dispatch; see README.md). The agent creates
// one per resource type it follows (its pods by spec.nodeName, its node, a
// CSR) and runs it under its component's signal. Construction does no I/O;
// `run` is the only thing that talks to the API.
import { abortableSleep } from '../../lifecycle/abort.js';
import type { ApiObject, ClientLog, Informer, InformerHandlers, InformerStore, ListerWatcher } from '../types.js';
import { Dispatcher } from './dispatch.js';
import { OnceLog, errorFields } from './log-once.js';
import { Reflector, type ReflectorClock } from './reflector.js';
import { IndexedStore } from './store.js';
import { stripManagedFields, type ObjectTransform } from './transform.js';

export { DEFAULT_PAGE_SIZE, INITIAL_EVENTS_END_ANNOTATION } from './policy.js';
export { NAMESPACE_INDEX, objectKey, UnknownIndexError } from './store.js';
export { IncompleteWatchListError, ShortWatchError } from './reflector.js';
export { stripManagedFields, type ObjectTransform } from './transform.js';

export interface InformerOptions {
  log: ClientLog;
  /** Extra indexes by name (e.g. `nodeName` → `[spec.nodeName]`); 'namespace' always exists. */
  indexes?: Record<string, (obj: ApiObject) => readonly string[]>;
  /** Streaming lists (the WatchList gate): falls back to list and watch when the server answers 422. */
  watchList?: boolean;
  /** `limit` of list pages; default 500 for lists at '' or '0', none for lists at a version unless the server paged before (client-go's rules). */
  pageSize?: number;
  /** Passed to every list and watch (the kubelet's pods: `spec.nodeName=<node>`). */
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Applied to every listed and watched object before the store and the
   * handlers see it (client-go's SetTransform); e.g. `stripManagedFields`,
   * which the agent's informers use. Must keep name, namespace and
   * resourceVersion. A transform that throws fails that list or watch (the
   * informer backs off and relists), as bad input does.
   */
  transform?: ObjectTransform;
  /**
   * The informer's readers never look at metadata.managedFields: every list
   * and watch asks for objects without it (a protobuf decode then skips it
   * on the wire, the cheaper half of an event), and it is stripped before
   * `transform` from whatever still has it. The agent's informers set it.
   */
  omitManagedFields?: boolean;
  /** Test seams: the clock (ms), [0, 1) randomness (jitter, watch timeouts), and the back-off sleep. */
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The reflector's transform: stripping first when managedFields are omitted (a ListerWatcher may ignore the hint). */
function transformOf(opts: InformerOptions): ObjectTransform | undefined {
  const t = opts.transform;
  if (opts.omitManagedFields !== true) return t;
  return t === undefined ? stripManagedFields : (obj) => t(stripManagedFields(obj));
}

export function createInformer(lw: ListerWatcher, opts: InformerOptions): Informer {
  const log = new OnceLog(opts.log, { resource: lw.type.resource, ...(lw.namespace === '' ? {} : { namespace: lw.namespace }) });
  const store = new IndexedStore(opts.indexes ?? {}, (index, err) => log.once('error', `index:${index}`, `informer: index function ${JSON.stringify(index)} threw`, errorFields(err)));
  const dispatcher = new Dispatcher(store, log);
  const clock: ReflectorClock = { now: opts.now ?? Date.now, random: opts.random ?? Math.random, sleep: opts.sleep ?? abortableSleep };
  let synced = false;
  let markSynced!: () => void;
  const syncedPromise = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  let running = false;
  const reflector = new Reflector({
    lw,
    dispatcher,
    log,
    watchList: opts.watchList ?? false,
    pageSize: opts.pageSize,
    selectors: { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, omitManagedFields: opts.omitManagedFields },
    clock,
    transform: transformOf(opts),
    onSynced: () => {
      if (synced) return;
      synced = true;
      markSynced();
    },
  });
  const view: InformerStore = store;
  return {
    store: view,
    synced: syncedPromise,
    hasSynced: () => synced,
    addHandlers(h: InformerHandlers): void {
      dispatcher.addHandlers(h);
    },
    async run(signal: AbortSignal): Promise<void> {
      if (running) throw new Error(`informer for ${lw.type.resource} is already running`);
      running = true;
      try {
        await reflector.run(signal);
      } finally {
        running = false;
      }
    },
  };
}
