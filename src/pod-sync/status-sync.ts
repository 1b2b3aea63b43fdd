// The pod status sync (the kubelet's status manager): writes the status the
// pod workers publish into the StatusStore to the API — an API pod's own
// status, a static pod's to its mirror pod — and, once an API pod being
// deleted has been torn down (its status dropped from the store), writes its
// final status and deletes it with the uid precondition and grace period 0
// (the kubelet's canBeDeleted → Delete).
//
// One worker writes one pod at a time; rapid changes of a pod coalesce (only
// the latest status is sent); a write is sent only when the status differs
// from what was last written; a failed write (409, 5xx, unreachable) keeps
// the pod queued and is retried with back-off and at the periodic resync
// (10 s), so the latest status is never lost. A pod gone from the API is
// forgotten. Each distinct failure is logged once until a write succeeds.
// The composition root runs it in API-server mode; nothing runs after stop.
import { isApiError, isConflict, isNotFound } from '../api/errors.js';
import { RESOURCES, type ApiClient } from '../client/index.js';
import { metaOf, nameOf, namespaceOf, uidOf } from '../client/meta.js';
import { patchPodStatus } from '../client/node/index.js';
import type { ApiObject, ClientLog, Informer } from '../client/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { Pod, PodStatus } from '../pod-model/pod-types.js';
import { ANNOTATION_MIRROR } from '../sources/static-pod.js';
import type { StatusStore } from '../status/store.js';
import { canonicalJson } from '../util/canonical-json.js';
import { apiPodAction, apiStatusOf, finalStatus, isMirrorOf, mergedStatus, statusTarget, type StatusTarget } from './status-decide.js';

/** The kubelet's status manager resync of every pod. */
export const STATUS_RESYNC_MS = 10_000;
/** The first retry of a failed write; doubled up to the resync period. */
export const STATUS_RETRY_INITIAL_MS = 500;

export interface PodStatusSyncOptions {
  readonly client: Pick<ApiClient, 'rest'>;
  readonly status: StatusStore;
  /**
   * The node's pods as the API serves them (the API pod source's informer):
   * an API pod deleted before the agent ever published a status for it is
   * finished from there. Optional: without it only pods with a status are.
   */
  readonly informer?: Informer;
  /**
   * The pod manager's couldHaveRunningContainers: a pod being deleted is
   * deleted from the API only once this is false. Without it, the status
   * being dropped from the store is taken as the end.
   */
  readonly couldHaveRunningContainers?: (uid: string) => boolean;
  /** Which stored pods to write; default every pod with an API target (API pods, static pods' mirrors). */
  readonly isMirrorOrApi?: (pod: Pod) => boolean;
  readonly log: ClientLog;
  readonly resyncMs?: number;
  readonly retryInitialMs?: number;
}

/** Which object a pod's status goes to: its identity and target. */
interface PodIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly target: StatusTarget;
}

interface Entry {
  pod: PodIdentity;
  /** The latest status the agent has; undefined for a pod it never ran. */
  status: PodStatus | undefined;
  /** Dropped from the store: the agent is done with the pod. */
  dropped: boolean;
  /** canonicalJson of the status last written (or found equal on the server). */
  sent: string | undefined;
  /**
   * The status object `sent` was found equal to: the resync compares 110 pods
   * every 10 s, and a status the store did not replace needs no second
   * canonical form (that alone was a third of the idle agent's allocations).
   */
  sentOf?: PodStatus | undefined;
  /** Earliest time of the next attempt (after a failure). */
  notBefore: number;
  failures: number;
}

const identity = (pod: Pod): PodIdentity => ({ name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid, target: statusTarget(pod) ?? { kind: 'api' } });
const refOf = (p: PodIdentity): string => `${p.namespace}/${p.name}`;

export function createPodStatusSync(o: PodStatusSyncOptions): Component {
  const resyncMs = o.resyncMs ?? STATUS_RESYNC_MS;
  const retryInitialMs = o.retryInitialMs ?? STATUS_RETRY_INITIAL_MS;
  const wanted = o.isMirrorOrApi ?? ((p: Pod) => statusTarget(p) !== undefined);
  const entries = new Map<string, Entry>();
  const dirty = new Set<string>();
  const logged = new Set<string>();
  let wake: (() => void) | undefined;
  /** After stop: the informer's handlers (which cannot be removed) do nothing. */
  let stopped = false;

  const poke = (): void => {
    wake?.();
    wake = undefined;
  };

  function onStore(uid: string, next: { pod: Pod; status: PodStatus } | undefined, previous: { pod: Pod; status: PodStatus } | undefined): void {
    const pod = next?.pod ?? previous?.pod;
    if (pod === undefined || !wanted(pod)) return;
    const e = entries.get(uid);
    if (next !== undefined) {
      if (e === undefined) entries.set(uid, { pod: identity(next.pod), status: next.status, dropped: false, sent: undefined, notBefore: 0, failures: 0 });
      else Object.assign(e, { pod: identity(next.pod), status: next.status, dropped: false });
      if (isSent(entries.get(uid), next.status)) return;
    } else if (e !== undefined) {
      e.dropped = true;
    } else {
      entries.set(uid, { pod: identity(pod), status: previous?.status, dropped: true, sent: undefined, notBefore: 0, failures: 0 });
    }
    dirty.add(uid);
    poke();
  }

  /**
   * From the node's informer: a mirror pod appearing takes its static pod's
   * status at once (not at the next resync); an API pod being deleted that
   * the agent holds no status for is finished from the API's side.
   */
  function onApiObject(obj: ApiObject): void {
    if (stopped) return;
    if (typeof (metaOf(obj)['annotations'] as Record<string, unknown> | undefined)?.[ANNOTATION_MIRROR] === 'string') {
      for (const [uid, e] of entries) if (e.pod.name === nameOf(obj) && e.pod.namespace === namespaceOf(obj)) dirty.add(uid);
      poke();
      return;
    }
    if (typeof metaOf(obj)['deletionTimestamp'] !== 'string') return;
    const uid = uidOf(obj);
    if (uid === undefined || o.status.get(uid) !== undefined || entries.has(uid)) return;
    // Left to the resync: by then the pod source has handed the pod on, and the
    // pod manager knows whether it still holds anything of it.
    entries.set(uid, { pod: { name: nameOf(obj), namespace: namespaceOf(obj), uid, target: { kind: 'api' } }, status: undefined, dropped: true, sent: undefined, notBefore: 0, failures: 0 });
  }

  /** Whether `status` is what was last written for the entry. */
  function isSent(e: Entry | undefined, status: PodStatus | undefined): boolean {
    if (e === undefined || status === undefined || e.sent === undefined) return false;
    if (e.sentOf === status) return true;
    if (e.sent !== canonicalJson(apiStatusOf(status))) return false;
    e.sentOf = status;
    return true;
  }

  function problem(err: unknown): string {
    const e = err as { code?: unknown; reason?: unknown; name?: unknown };
    return typeof e.code === 'number' ? `${e.code} ${String(e.reason ?? '')}` : String(e.name ?? 'Error');
  }

  async function writeApiPod(e: Entry, signal: AbortSignal): Promise<void> {
    const { name, namespace, uid } = e.pod;
    const pods = o.client.rest.resource(RESOURCES.pods, namespace);
    let current: ApiObject | undefined;
    try {
      current = await pods.get(name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const action = apiPodAction(current, uid, e.dropped);
    if (action === 'forget' || current === undefined) {
      entries.delete(uid);
      return;
    }
    // Still stopping (or about to): finished at a later resync.
    if (action === 'finish' && o.couldHaveRunningContainers?.(uid) === true) return;
    const server = (current['status'] ?? {}) as ApiObject;
    const status = e.status;
    const ours = action === 'finish' ? finalStatus(status, server) : apiStatusOf(status ?? ({} as PodStatus));
    if (status !== undefined || action === 'finish') await patchPodStatus(pods, { name, uid, oldStatus: server, newStatus: mergedStatus(ours, server) }, signal);
    e.sent = canonicalJson(ours);
    e.sentOf = action === 'finish' ? undefined : status;
    if (action !== 'finish') return;
    try {
      await pods.delete(name, { gracePeriodSeconds: 0, preconditions: { uid }, signal });
      o.log.info('Pod deleted from the API server after its final status', { pod: refOf(e.pod), podUID: uid });
    } catch (err) {
      // Gone already, or re-created (the uid precondition failed: 409): not ours any more.
      if (!isNotFound(err) && (err as { code?: unknown }).code !== 409) throw err;
    }
    entries.delete(uid);
  }

  async function writeMirror(e: Entry, hash: string, signal: AbortSignal): Promise<void> {
    // A static pod's end is the mirror pod manager's to handle (it deletes the mirror).
    if (e.dropped || e.status === undefined) {
      entries.delete(e.pod.uid);
      return;
    }
    const { name, namespace } = e.pod;
    const pods = o.client.rest.resource(RESOURCES.pods, namespace);
    let mirror: ApiObject;
    try {
      mirror = await pods.get(name, { signal });
    } catch (err) {
      // No mirror yet: written at the resync after the mirror pod manager created it.
      if (isNotFound(err)) return;
      throw err;
    }
    if (!isMirrorOf(mirror, hash)) return;
    const server = (mirror['status'] ?? {}) as ApiObject;
    const status = e.status;
    const ours = apiStatusOf(status);
    await patchPodStatus(pods, { name, uid: uidOf(mirror) ?? '', oldStatus: server, newStatus: mergedStatus(ours, server) }, signal);
    e.sent = canonicalJson(ours);
    e.sentOf = status;
  }

  async function syncOne(uid: string, signal: AbortSignal): Promise<void> {
    const e = entries.get(uid);
    if (e === undefined) return;
    const target = e.pod.target;
    try {
      if (target.kind === 'mirror') await writeMirror(e, target.hash, signal);
      else await writeApiPod(e, signal);
      e.failures = 0;
      e.notBefore = 0;
      if (logged.size > 0) {
        o.log.info('Writing pod statuses to the API server again', { pod: refOf(e.pod) });
        logged.clear();
      }
    } catch (err) {
      if (signal.aborted) return;
      const key = problem(err);
      if (!logged.has(key)) {
        logged.add(key);
        const fields = { pod: refOf(e.pod), podUID: uid, error: err instanceof Error ? err.message : String(err) };
        // A pod (a mirror, mostly) replaced or deleted while its status was written: a race the next try settles, not a failure.
        if (replacedMeanwhile(err)) o.log.info('The pod changed in the API server while its status was written; will retry', fields);
        else o.log.error('Failed to update the status of a pod in the API server; will retry', fields);
      }
      e.failures++;
      e.notBefore = Date.now() + Math.min(resyncMs, retryInitialMs * 2 ** Math.min(e.failures - 1, 16));
      dirty.add(uid);
    }
  }

  /** The resync: every pod whose latest status is not known to be written. */
  function resync(): void {
    for (const [uid, e] of entries) if (e.dropped || !isSent(e, e.status)) dirty.add(uid);
    poke();
  }

  return defineComponent('pod-status-sync', async (signal, markReady) => {
    const unsubscribe = o.status.subscribe(onStore);
    for (const { pod, status } of o.status.all()) onStore(pod.metadata.uid, { pod, status }, undefined);
    o.informer?.addHandlers({ onAdd: onApiObject, onUpdate: (_, b) => onApiObject(b) });
    for (const obj of o.informer?.store.list() ?? []) onApiObject(obj);
    const tick = setInterval(resync, resyncMs);
    const onAbort = (): void => poke();
    signal.addEventListener('abort', onAbort);
    markReady();
    try {
      while (!signal.aborted) {
        const now = Date.now();
        let next = Infinity;
        const due = [...dirty].filter((uid) => {
          const at = entries.get(uid)?.notBefore ?? 0;
          if (at > now) next = Math.min(next, at);
          return at <= now;
        });
        for (const uid of due) {
          if (signal.aborted) break;
          dirty.delete(uid);
          await syncOne(uid, signal);
        }
        if (due.length > 0 || signal.aborted) continue;
        await new Promise<void>((resolve) => {
          const timer = next === Infinity ? undefined : setTimeout(resolve, next - now);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      stopped = true;
      signal.removeEventListener('abort', onAbort);
      clearInterval(tick);
      unsubscribe();
      poke();
    }
  });
}

/**
 * The pod went or was replaced under the same name while its status was being
 * written: gone (404), a uid precondition that failed (409), the patch's old
 * uid refused by the new object (422 on metadata.uid, as upstream answers a
 * PatchPodStatus that races a re-creation), or node authorization not yet
 * relating the new object to the node (403).
 */
function replacedMeanwhile(err: unknown): boolean {
  if (isConflict(err) || isNotFound(err)) return true;
  if (!isApiError(err)) return false;
  // The node authorizer's graph has not seen the re-created object yet.
  return (err.reason === 'Invalid' && err.message.includes('metadata.uid')) || (err.reason === 'Forbidden' && err.message.includes('no relationship found'));
}
