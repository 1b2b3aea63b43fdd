// Which runtime objects a streaming request means: the pod from the status
// store (the pods this agent runs), then its newest container of that name,
// or its ready sandbox, from the runtime's listing (the runtime's view is
// current after a restart; the store's containerID may lag it).
import type { RuntimeService } from '../../cri/types.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from '../../runtime-view/labels.js';
import type { StatusStore } from '../../status/store.js';
import { refuse, type Parsed, type PodTarget } from './params.js';

export interface FoundPod {
  readonly uid: string;
  /** `namespace/name`, for messages. */
  readonly ref: string;
}

/** The pod by namespace and name; a uid in the request must match it. 404 otherwise (upstream: "pod does not exist"). */
export function findPod(status: Pick<StatusStore, 'all'>, t: PodTarget): Parsed<FoundPod> {
  const hit = status.all().find((p) => p.pod.metadata.namespace === t.namespace && p.pod.metadata.name === t.pod);
  const uid = hit?.pod.metadata.uid ?? '';
  if (hit === undefined || (t.uid !== '' && t.uid !== uid)) return refuse(404, `pod does not exist: ${t.namespace}/${t.pod}${t.uid === '' ? '' : ` with uid ${t.uid}`}`);
  return { ok: true, value: { uid, ref: `${t.namespace}/${t.pod}` } };
}

/** The id of the pod's container named `name`: a running one first, then the newest. 404 when the runtime has none. */
export async function findContainerId(runtime: RuntimeService, pod: FoundPod, name: string, signal: AbortSignal): Promise<Parsed<string>> {
  const list = await runtime.listContainers({ labelSelector: { [LABEL_POD_UID]: pod.uid, [LABEL_CONTAINER_NAME]: name } }, signal);
  const newest = [...list].sort((a, b) => Number(b.createdAt - a.createdAt) || (a.id < b.id ? -1 : 1));
  const pick = newest.find((c) => c.state === 'RUNNING') ?? newest[0];
  if (pick === undefined) return refuse(404, `container not found ("${name}") in pod ${pod.ref}`);
  return { ok: true, value: pick.id };
}

/** The pod's ready sandbox (the newest when several). 404 when none is ready. */
export async function findSandboxId(runtime: RuntimeService, pod: FoundPod, signal: AbortSignal): Promise<Parsed<string>> {
  const list = await runtime.listPodSandbox({ state: 'READY', labelSelector: { [LABEL_POD_UID]: pod.uid } }, signal);
  const pick = [...list].sort((a, b) => Number(b.createdAt - a.createdAt))[0];
  if (pick === undefined) return refuse(404, `pod ${pod.ref} has no ready sandbox to forward ports into`);
  return { ok: true, value: pick.id };
}
