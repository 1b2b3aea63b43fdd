// The API pod source (the kubelet's config/apiserver.go): the pods bound to
// this node (fieldSelector spec.nodeName=<node>, all namespaces), followed by
// an informer, handed to `onPods` as the source's complete set — the merger's
// set('api', pods) — after the initial list and after every change, a few
// changes coalesced into one call. Mirror pods (the API's copies of this
// node's static pods) are not run: they are left out of the set, and the
// mirror pod manager reads them from `informer`.
//
// A pod that cannot be decoded or fails validation is logged once per
// version, naming the pod and the field, and left out (a pod already running
// keeps its previous version); the other pods run.
// The composition root runs the component in API-server mode; construction
// does no I/O, and nothing runs after stop (the debounce timer is cleared).
import { RESOURCES, type ApiClient } from '../client/index.js';
import { createInformer } from '../client/informer/index.js';
import { namespaceOf, nameOf, resourceVersionOf, uidOf } from '../client/meta.js';
import type { ApiObject, ClientLog, Informer } from '../client/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { Pod } from '../pod-model/pod-types.js';
import { isMirrorPodObject, podFromApiObject, withDeletionOf } from './api-decode.js';

/** How long a change waits for the next one before the set is handed on. */
export const API_SOURCE_DEBOUNCE_MS = 50;

export interface ApiPodSourceOptions {
  readonly client: Pick<ApiClient, 'rest'>;
  readonly nodeName: string;
  /** Receives the complete set of the node's API pods (mirror pods excluded). Must not throw. */
  readonly onPods: (pods: Pod[]) => void;
  readonly log: ClientLog;
  /** The SidecarContainers gate, for validation (default off, as in 1.28). */
  readonly sidecars?: boolean;
  readonly debounceMs?: number;
}

export interface ApiPodSource extends Component {
  /** The node's pods as the API serves them, mirror pods included; run by this component (do not run it elsewhere). */
  readonly informer: Informer;
}

interface Decoded {
  readonly version: string;
  readonly pod: Pod | undefined;
}

export function createApiPodSource(o: ApiPodSourceOptions): ApiPodSource {
  const informer = createInformer(o.client.rest.resource(RESOURCES.pods), { log: o.log, fieldSelector: `spec.nodeName=${o.nodeName}`, omitManagedFields: true });
  const debounceMs = o.debounceMs ?? API_SOURCE_DEBOUNCE_MS;
  /** uid → the pod decoded from one resourceVersion: a status write (new version, same spec) decodes again, an unchanged object never does. */
  const decoded = new Map<string, Decoded>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function decode(obj: ApiObject): Pod | undefined {
    const uid = uidOf(obj) ?? `${namespaceOf(obj)}/${nameOf(obj)}`;
    const version = resourceVersionOf(obj);
    const known = decoded.get(uid);
    if (known !== undefined && known.version === version) return known.pod;
    const r = podFromApiObject(obj, { sidecars: o.sidecars === true });
    // A version that fails validation leaves a pod already running as it was
    // (a deletion still reaches it); a new one is not run. Logged once per
    // version: the cache below keeps the verdict until the object changes.
    const kept = known?.pod === undefined ? undefined : withDeletionOf(known.pod, obj);
    if (!r.ok) o.log.error(kept === undefined ? 'Pod from the API server is invalid; not running it' : 'Pod from the API server is invalid; keeping its previous version', { pod: `${namespaceOf(obj)}/${nameOf(obj)}`, podUID: uid, error: r.error });
    const pod = r.ok ? r.pod : kept;
    decoded.set(uid, { version, pod });
    return pod;
  }

  function publish(): void {
    timer = undefined;
    if (stopped) return;
    const pods: Pod[] = [];
    const live = new Set<string>();
    for (const obj of informer.store.list()) {
      if (isMirrorPodObject(obj)) continue;
      const pod = decode(obj);
      live.add(uidOf(obj) ?? `${namespaceOf(obj)}/${nameOf(obj)}`);
      if (pod !== undefined) pods.push(pod);
    }
    for (const uid of decoded.keys()) if (!live.has(uid)) decoded.delete(uid);
    o.onPods(pods);
  }

  function changed(): void {
    // Before the first complete list a partial set would tear down pods the list has not reached yet.
    if (stopped || !informer.hasSynced() || timer !== undefined) return;
    timer = setTimeout(publish, debounceMs);
  }
  informer.addHandlers({ onAdd: changed, onUpdate: changed, onDelete: changed });

  const component = defineComponent('api-pod-source', async (signal, markReady) => {
    void informer.synced.then(() => {
      if (stopped) return;
      // The first set goes at once: the merger learns the API source has reported.
      clearTimeout(timer);
      publish();
    });
    // Ready at once: an unreachable API server must not hold up the components started after this one.
    markReady();
    try {
      await informer.run(signal);
    } finally {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    }
  });
  return Object.assign(component, { informer });
}
