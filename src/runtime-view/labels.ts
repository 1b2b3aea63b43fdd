// Labels and annotations on runtime objects: the kubelet's conventions
// (kuberuntime/labels.go) under the renamed prefix `io.platform.`. They are
// the agent's durable state: after a restart, pod identity, container hash and
// restart count are read back from them, which is how running sandboxes and
// containers are adopted rather than recreated. Objects without these labels
// were not created by the agent and are never touched.
import { createHash } from 'node:crypto';
import type { Container, LifecycleHandler, Pod } from '../pod-model/pod-types.js';
import { canonicalJson } from '../util/canonical-json.js';

export const LABEL_POD_NAME = 'io.platform.pod.name';
export const LABEL_POD_NAMESPACE = 'io.platform.pod.namespace';
export const LABEL_POD_UID = 'io.platform.pod.uid';
export const LABEL_CONTAINER_NAME = 'io.platform.container.name';
/** Marks objects the agent manages (the kubelet uses io.kubernetes.docker.type / managed labels similarly). */
export const LABEL_MANAGED = 'io.platform.agent.managed';

export const ANN_CONTAINER_HASH = 'io.platform.container.hash';
export const ANN_CONTAINER_RESTART_COUNT = 'io.platform.container.restartCount';
export const ANN_TERMINATION_MESSAGE_PATH = 'io.platform.container.terminationMessagePath';
export const ANN_TERMINATION_MESSAGE_POLICY = 'io.platform.container.terminationMessagePolicy';
export const ANN_POD_TERMINATION_GRACE_PERIOD = 'io.platform.pod.terminationGracePeriod';
export const ANN_CONTAINER_PORTS = 'io.platform.container.ports';
export const ANN_CONTAINER_TYPE = 'io.platform.container.type';
/**
 * The container's index in its list (spec.initContainers or spec.containers):
 * a pod torn down without its spec (after an agent restart) still stops its
 * sidecars last-to-first.
 */
export const ANN_CONTAINER_INDEX = 'io.platform.container.index';
/** The container's preStop handler as JSON (the kubelet's preStopHandler annotation): a pod whose spec is gone still gets its hook. */
export const ANN_CONTAINER_PRESTOP_HANDLER = 'io.platform.container.preStopHandler';
/** Hash of the pod settings baked into its sandbox: a change recreates the sandbox. */
export const ANN_SANDBOX_HASH = 'io.platform.pod.sandboxHash';
/**
 * "true" or "false": whether the sandbox shares the node's network. The relist
 * then knows a host-network sandbox from the list alone: it has no IP of its
 * own, so its status need not be read (absent on sandboxes from older agents:
 * read as before).
 */
export const ANN_SANDBOX_HOST_NETWORK = 'io.platform.pod.hostNetwork';

export type ContainerType = 'init' | 'container';

export function sandboxLabels(pod: Pod): Record<string, string> {
  return {
    ...pod.metadata.labels,
    [LABEL_POD_NAME]: pod.metadata.name,
    [LABEL_POD_NAMESPACE]: pod.metadata.namespace,
    [LABEL_POD_UID]: pod.metadata.uid,
    [LABEL_MANAGED]: 'true',
  };
}

/** The pod settings a sandbox is created with; when they change, the sandbox must be recreated. */
// Pod objects are never mutated once a source made them (a change is a new object), so a hash is
// remembered per object: every periodic sync of every pod asks for it again.
const sandboxHashes = new WeakMap<Pod['spec'], string>();
const containerHashes = new WeakMap<Container, string>();

export function sandboxHash(pod: Pod): string {
  const s = pod.spec;
  const known = sandboxHashes.get(s);
  if (known !== undefined) return known;
  const ports = s.containers.flatMap((c) => (c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0).map((p) => [p.containerPort, p.hostPort, p.protocol, p.hostIP ?? '']));
  const settings = { hostNetwork: s.hostNetwork ?? false, hostPID: s.hostPID ?? false, hostIPC: s.hostIPC ?? false, shareProcessNamespace: s.shareProcessNamespace ?? false, hostname: s.hostname ?? '', subdomain: s.subdomain ?? '', dnsPolicy: s.dnsPolicy, dnsConfig: s.dnsConfig ?? null, sysctls: s.securityContext?.sysctls ?? [], ports, runtimeClassName: s.runtimeClassName ?? '' };
  const hash = createHash('sha256').update(canonicalJson(settings)).digest('hex').slice(0, 16);
  sandboxHashes.set(s, hash);
  return hash;
}

export function containerLabels(pod: Pod, container: Container): Record<string, string> {
  return {
    [LABEL_POD_NAME]: pod.metadata.name,
    [LABEL_POD_NAMESPACE]: pod.metadata.namespace,
    [LABEL_POD_UID]: pod.metadata.uid,
    [LABEL_CONTAINER_NAME]: container.name,
    [LABEL_MANAGED]: 'true',
  };
}

/**
 * The container's spec hash: a change restarts that container only. Hex of
 * the first 8 bytes of a SHA-256 over the canonical JSON of the spec (the
 * kubelet uses FNV-64 over a dump of the struct; only equality matters).
 */
export function containerHash(container: Container): string {
  const known = containerHashes.get(container);
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(canonicalJson(container)).digest('hex').slice(0, 16);
  containerHashes.set(container, hash);
  return hash;
}

export function containerAnnotations(pod: Pod, container: Container, restartCount: number, type: ContainerType): Record<string, string> {
  const out: Record<string, string> = {
    [ANN_CONTAINER_HASH]: containerHash(container),
    [ANN_CONTAINER_RESTART_COUNT]: String(restartCount),
    [ANN_TERMINATION_MESSAGE_PATH]: container.terminationMessagePath,
    [ANN_TERMINATION_MESSAGE_POLICY]: container.terminationMessagePolicy,
    [ANN_POD_TERMINATION_GRACE_PERIOD]: String(pod.spec.terminationGracePeriodSeconds),
    [ANN_CONTAINER_TYPE]: type,
  };
  const index = ((type === 'init' ? pod.spec.initContainers : pod.spec.containers) ?? []).findIndex((c) => c.name === container.name);
  if (index >= 0) out[ANN_CONTAINER_INDEX] = String(index);
  if (container.ports && container.ports.length > 0) out[ANN_CONTAINER_PORTS] = JSON.stringify(container.ports);
  const preStop = preStopAnnotation(container);
  if (preStop !== undefined) out[ANN_CONTAINER_PRESTOP_HANDLER] = preStop;
  return out;
}

/**
 * The annotation's value for the container's preStop handler (undefined: it
 * has none). A port given by name is stored as its number, so the record
 * needs nothing else of the spec once the pod's spec is gone.
 */
function preStopAnnotation(container: Container): string | undefined {
  const h = container.lifecycle?.preStop;
  if (!h) return undefined;
  const byName = (port: number | string): number | string => (typeof port === 'string' ? (container.ports?.find((p) => p.name === port)?.containerPort ?? port) : port);
  const out: LifecycleHandler = { ...h };
  if (h.httpGet) out.httpGet = { ...h.httpGet, port: byName(h.httpGet.port) };
  if (h.tcpSocket) out.tcpSocket = { ...h.tcpSocket, port: byName(h.tcpSocket.port) };
  return JSON.stringify(out);
}
