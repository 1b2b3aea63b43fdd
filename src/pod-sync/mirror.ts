// The mirror pod manager (the kubelet's mirror_client.go with the parts of
// syncPod and HandlePodCleanups that use it): every static pod the agent runs
// gets a mirror pod in the API, so that the cluster sees it; a mirror deleted
// by someone is made again, one whose static pod changed is replaced (delete
// with the uid precondition, then create), and one whose static pod went is
// deleted. What the API holds comes from the API pod source's informer
// (mirror pods are bound to the node); the static pods from the composition
// root (setStaticPods after every merge). The Node's uid, which the owner
// reference needs, comes from `node()` (the node agent's registered()):
// nothing is written before the Node is registered.
//
// One reconcile runs at a time, after any change; a failed request is logged
// once per problem and the reconcile retried with back-off. NodeRestriction
// refuses a mirror of a static pod that references a service account, a
// secret, a configmap or a claim (403): logged once, retried at back-off.
// Nothing runs after stop.
import { isAlreadyExists, isNotFound } from '../api/errors.js';
import { RESOURCES, type ApiClient } from '../client/index.js';
import type { ClientLog, Informer } from '../client/types.js';
import { abortableSleep } from '../lifecycle/abort.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import type { Pod } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import { isStaticPod, mirrorActions, mirrorPodObject, mirrorRefOf, type MirrorAction, type MirrorRef, type NodeRef } from './mirror-diff.js';

export const MIRROR_RETRY_INITIAL_MS = 500;
export const MIRROR_RETRY_MAX_MS = 30_000;

export interface MirrorPodsOptions {
  readonly client: Pick<ApiClient, 'rest'>;
  /** Resolves with the Node as registered; may stay pending while the API server is unreachable. */
  readonly node: () => Promise<NodeRef>;
  /** The node's pods (the API pod source's informer, run by that source). */
  readonly informer: Informer;
  readonly log: ClientLog;
  readonly retryInitialMs?: number;
}

export interface MirrorPods extends Component {
  /** The desired pods of every source (non-static ones are ignored) and whether every static source has reported. Never blocks. */
  setStaticPods(pods: readonly Pod[], allSourcesSeen: boolean): void;
}

const statusCode = (err: unknown): number | undefined => {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'number' ? c : undefined;
};

export function createMirrorPods(o: MirrorPodsOptions): MirrorPods {
  const retryInitialMs = o.retryInitialMs ?? MIRROR_RETRY_INITIAL_MS;
  let statics: Pod[] = [];
  let seen = false;
  let dirty = true;
  let wake: (() => void) | undefined;
  const logged = new Set<string>();
  const poke = (): void => {
    dirty = true;
    wake?.();
    wake = undefined;
  };

  /**
   * Mirror pods this manager deleted that the informer may still show: taken
   * as gone. (Deleting one again would not say 404: node authorization
   * refuses a delete of a pod no longer bound to the node with a 403.)
   */
  const deleted = new Set<string>();

  function mirrors(): MirrorRef[] {
    const all = o.informer.store.list().flatMap((obj) => mirrorRefOf(obj) ?? []);
    const present = new Set(all.map((m) => m.uid));
    for (const uid of deleted) if (!present.has(uid)) deleted.delete(uid);
    return all.filter((m) => !deleted.has(m.uid));
  }

  async function del(namespace: string, name: string, uid: string, signal: AbortSignal): Promise<void> {
    try {
      await o.client.rest.resource(RESOURCES.pods, namespace).delete(name, { gracePeriodSeconds: 0, preconditions: { uid }, signal });
      deleted.add(uid);
    } catch (err) {
      // Gone already, or another object now (the uid precondition): nothing of ours to delete.
      if (!isNotFound(err) && statusCode(err) !== 409) throw err;
    }
  }

  async function create(pod: Pod, node: NodeRef, signal: AbortSignal): Promise<void> {
    try {
      await o.client.rest.resource(RESOURCES.pods, pod.metadata.namespace).create(mirrorPodObject(pod, node), { signal });
      o.log.info('Created the mirror pod of a static pod', { pod: podRef(pod), podUID: pod.metadata.uid });
    } catch (err) {
      // The informer has not shown it yet (or a pod of that name exists): the next reconcile sees it.
      if (!isAlreadyExists(err)) throw err;
    }
  }

  async function apply(a: MirrorAction, node: NodeRef, signal: AbortSignal): Promise<void> {
    if (a.kind === 'delete') {
      await del(a.namespace, a.name, a.uid, signal);
      o.log.info('Deleted a mirror pod whose static pod is gone', { pod: `${a.namespace}/${a.name}` });
      return;
    }
    if (a.kind === 'replace') {
      await del(a.pod.metadata.namespace, a.pod.metadata.name, a.uid, signal);
      o.log.info('Deleted an outdated or deleted mirror pod to make it anew', { pod: podRef(a.pod) });
    }
    await create(a.pod, node, signal);
  }

  async function reconcile(node: NodeRef, signal: AbortSignal): Promise<boolean> {
    let ok = true;
    for (const a of mirrorActions(statics, mirrors(), seen)) {
      if (signal.aborted) return ok;
      try {
        await apply(a, node, signal);
      } catch (err) {
        if (signal.aborted) return ok;
        ok = false;
        const key = `${statusCode(err) ?? (err as Error).name}:${a.kind === 'delete' ? `${a.namespace}/${a.name}` : podRef(a.pod)}`;
        if (!logged.has(key)) {
          logged.add(key);
          o.log.error('Failed to update a mirror pod; will retry', { pod: a.kind === 'delete' ? `${a.namespace}/${a.name}` : podRef(a.pod), action: a.kind, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    if (ok) logged.clear();
    return ok;
  }

  const component = defineComponent('mirror-pods', async (signal, markReady) => {
    o.informer.addHandlers({ onAdd: poke, onUpdate: poke, onDelete: poke });
    const onAbort = (): void => poke();
    signal.addEventListener('abort', onAbort);
    markReady();
    try {
      const node = await Promise.race([o.node(), new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }))]);
      await Promise.race([o.informer.synced, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
      let failures = 0;
      while (!signal.aborted && node !== undefined) {
        if (!dirty) await new Promise<void>((resolve) => (wake = resolve));
        if (signal.aborted) break;
        dirty = false;
        if (await reconcile(node, signal)) {
          failures = 0;
          continue;
        }
        failures++;
        dirty = true;
        await abortableSleep(Math.min(MIRROR_RETRY_MAX_MS, retryInitialMs * 2 ** Math.min(failures - 1, 16)), signal).catch(() => undefined);
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      wake = undefined;
    }
  });
  return Object.assign(component, {
    setStaticPods(pods: readonly Pod[], allSourcesSeen: boolean): void {
      statics = pods.filter(isStaticPod);
      seen = allSourcesSeen;
      poke();
    },
  });
}
