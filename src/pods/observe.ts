// Reads what the runtime holds into ObservedPods. observePod() is fresh for one
// pod (a sync must not act on a stale relist: it could start a second copy of
// a container it just started); observeAll() serves the relist and reuses the
// status of sandboxes and containers whose state has not changed since.
import type { Container as RuntimeContainer, ContainerStatus, PodSandbox, PodSandboxStatus, RuntimeService } from '../cri/types.js';
import { isNotFound } from '../cri/errors.js';
import { LABEL_MANAGED, LABEL_POD_UID } from './labels.js';
import { emptyObserved, groupByPod, observeContainer, observeSandbox, type ObservedContainer, type ObservedPod, type ObservedSandbox } from './observed.js';

/**
 * Per ID: the status read for the entry's last state, and the entry last
 * observed from it. The CRI client hands back the same (frozen) entry object
 * while the runtime's answer for it is unchanged, so steady relists rebuild nothing.
 */
export interface StatusCache {
  sandboxes: Map<string, { state: string; status: PodSandboxStatus | undefined; raw?: PodSandbox; observed?: ObservedSandbox }>;
  containers: Map<string, { state: string; status: ContainerStatus | undefined; raw?: RuntimeContainer; observed?: ObservedContainer }>;
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

async function observe(runtime: RuntimeService, selector: Record<string, string>, cache: StatusCache | undefined, signal: AbortSignal): Promise<Map<string, ObservedPod>> {
  const [sandboxes, containers] = await Promise.all([runtime.listPodSandbox({ labelSelector: selector }, signal), runtime.listContainers({ labelSelector: selector }, signal)]);
  const sbInputs = await Promise.all(
    sandboxes.map(async (raw) => {
      const hit = cache?.sandboxes.get(raw.id);
      if (hit?.raw === raw && hit.observed) return { raw, observed: hit.observed };
      const status = hit && hit.state === raw.state ? hit.status : await orUndefined(runtime.podSandboxStatus(raw.id, signal));
      const observed = observeSandbox(raw, status);
      cache?.sandboxes.set(raw.id, { state: raw.state, status, raw, observed });
      return { raw, observed };
    }),
  );
  const ctInputs = await Promise.all(
    containers.map(async (raw) => {
      const hit = cache?.containers.get(raw.id);
      if (hit?.raw === raw && hit.observed) return { raw, observed: hit.observed };
      const status = hit && hit.state === raw.state ? hit.status : await orUndefined(runtime.containerStatus(raw.id, signal));
      const observed = observeContainer(raw, status);
      cache?.containers.set(raw.id, { state: raw.state, status, raw, observed });
      return { raw, observed };
    }),
  );
  if (cache) {
    const live = new Set(sandboxes.map((s) => s.id));
    for (const id of cache.sandboxes.keys()) if (!live.has(id)) cache.sandboxes.delete(id);
    const liveC = new Set(containers.map((c) => c.id));
    for (const id of cache.containers.keys()) if (!liveC.has(id)) cache.containers.delete(id);
  }
  return groupByPod(sbInputs, ctInputs);
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
