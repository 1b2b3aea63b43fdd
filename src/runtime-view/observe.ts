// Reads what the runtime holds into ObservedPods. observePod() is fresh for one
// pod (a sync must not act on a stale relist: it could start a second copy of
// a container it just started); observeAll() serves the relist and reuses the
// status of sandboxes and containers whose state has not changed since.
import type { Container as RuntimeContainer, ContainerStatus, PodSandbox, PodSandboxStatus, RuntimeService } from '../cri/types.js';
import { isNotFound } from '../cri/errors.js';
import { LABEL_MANAGED, LABEL_POD_UID } from './labels.js';
import { emptyObserved, groupByPod, isHostNetworkSandbox, observeContainer, observeSandbox, type ObservedContainerInput, type ObservedPod, type ObservedSandboxInput } from './observed.js';

/**
 * Per ID: the status read for the entry's last state, and the entry last
 * observed from it. The CRI client hands back the same (frozen) entry object
 * while the runtime's answer for it is unchanged, so steady relists rebuild
 * nothing: the pods whose entries are all unchanged are the same objects as
 * in the previous answer, and so is the whole map when no pod changed. What a
 * relist keeps for a second is promoted out of V8's young generation, and
 * what it allocates at a site V8 has learnt to pretenure (the pods' start
 * burst teaches it) goes straight to the old generation: a relist of 110
 * unchanged pods allocates no pod, array or map at all.
 */
export interface StatusCache {
  sandboxes: Map<string, { state: string; status: PodSandboxStatus | undefined; input?: ObservedSandboxInput }>;
  containers: Map<string, { state: string; status: ContainerStatus | undefined; input?: ObservedContainerInput }>;
  /** The previous answer. */
  pods?: Map<string, ObservedPod>;
}

export const newStatusCache = (): StatusCache => ({ sandboxes: new Map(), containers: new Map() });

/** A status that vanished between list and status (removed meanwhile) is simply absent. */
async function orUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

interface Entry<S, I> {
  state: string;
  status: S | undefined;
  input?: I;
}

/**
 * The observed input for every listed entry: from the cache when the entry is
 * the same object as last time; else built from its status, which is read
 * again only when the entry's state changed. Status reads run concurrently.
 */
async function inputs<R extends { id: string; state: string }, S, I extends { raw: R }>(
  listed: readonly R[],
  cache: Map<string, Entry<S, I>> | undefined,
  readStatus: (raw: R) => Promise<S | undefined>,
  build: (raw: R, status: S | undefined) => I,
): Promise<{ items: I[]; unchanged: boolean }> {
  const out: I[] = new Array<I>(listed.length);
  const misses: Array<Promise<void>> = [];
  for (let i = 0; i < listed.length; i++) {
    const raw = listed[i]!;
    const hit = cache?.get(raw.id);
    if (hit?.input !== undefined && hit.input.raw === raw) {
      out[i] = hit.input;
      continue;
    }
    misses.push(
      (async () => {
        const status = hit && hit.state === raw.state ? hit.status : await readStatus(raw);
        const input = build(raw, status);
        cache?.set(raw.id, { state: raw.state, status, input });
        out[i] = input;
      })(),
    );
  }
  if (misses.length > 0) await Promise.all(misses);
  // With every listed entry a hit (IDs are unique), equal sizes mean nothing cached has vanished either.
  const unchanged = cache !== undefined && misses.length === 0 && cache.size === listed.length;
  if (cache && !unchanged) {
    const live = new Set(listed.map((x) => x.id));
    for (const id of cache.keys()) if (!live.has(id)) cache.delete(id);
  }
  return { items: out, unchanged };
}

const sameItems = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The new answer, with each unchanged pod (and, if none changed, the whole map) as the previous answer's object. */
function reuse(next: Map<string, ObservedPod>, previous: Map<string, ObservedPod> | undefined): Map<string, ObservedPod> {
  if (previous === undefined) return next;
  let changed = next.size !== previous.size;
  for (const [uid, pod] of next) {
    const old = previous.get(uid);
    if (old !== undefined && sameItems(old.sandboxes, pod.sandboxes) && sameItems(old.containers, pod.containers)) next.set(uid, old);
    else changed = true;
  }
  return changed ? next : previous;
}

async function observe(runtime: RuntimeService, selector: Record<string, string>, cache: StatusCache | undefined, signal: AbortSignal): Promise<Map<string, ObservedPod>> {
  const [sandboxes, containers] = await Promise.all([runtime.listPodSandbox({ labelSelector: selector }, signal), runtime.listContainers({ labelSelector: selector }, signal)]);
  const [sb, ct] = await Promise.all([
    inputs(
      sandboxes,
      cache?.sandboxes,
      // A host-network sandbox's status adds nothing the list lacks (the pod has the node's IP).
      (raw) => (isHostNetworkSandbox(raw) ? Promise.resolve(undefined) : orUndefined(runtime.podSandboxStatus(raw.id, signal))),
      (raw: PodSandbox, status): ObservedSandboxInput => ({ raw, observed: observeSandbox(raw, status) }),
    ),
    inputs(
      containers,
      cache?.containers,
      (raw) => orUndefined(runtime.containerStatus(raw.id, signal)),
      (raw: RuntimeContainer, status): ObservedContainerInput => ({ raw, observed: observeContainer(raw, status) }),
    ),
  ]);
  if (!cache) return groupByPod(sb.items, ct.items);
  // The steady relist (the same entries, in whatever order the runtime lists them): the previous answer, not regrouped.
  if (cache.pods && sb.unchanged && ct.unchanged) return cache.pods;
  cache.pods = reuse(groupByPod(sb.items, ct.items), cache.pods);
  return cache.pods;
}

export async function observePod(runtime: RuntimeService, uid: string, signal: AbortSignal): Promise<ObservedPod> {
  return (await observe(runtime, { [LABEL_POD_UID]: uid }, undefined, signal)).get(uid) ?? emptyObserved(uid);
}

export function observeAll(runtime: RuntimeService, cache: StatusCache, signal: AbortSignal): Promise<Map<string, ObservedPod>> {
  return observe(runtime, { [LABEL_MANAGED]: 'true' }, cache, signal);
}

/** A short signature of a pod's runtime state: changes when anything the sync loop reacts to changes. */
export function signature(p: ObservedPod): string {
  return [...p.sandboxes.map((s) => `${s.id}:${s.ready}`), ...p.containers.map((c) => `${c.id}:${c.state}`)].join(',');
}
