// The references and messages the kubelet's emit sites use, so each site is
// one call: a pod's reference, a container's (fieldPath as the kubelet's
// GenerateContainerRef), and the recorders that write nowhere. Pure.
import type { AgentLogger } from '../log/index.js';
import type { EventObjectRef, EventRecorder } from './types.js';

/** What a reference needs of a pod (a Pod's metadata, or a runtime view's namespace/name/uid). */
export interface PodMeta {
  namespace: string;
  name: string;
  uid: string;
}

export type ContainerKind = 'container' | 'init' | 'ephemeral';

const FIELD: Record<ContainerKind, string> = { container: 'containers', init: 'initContainers', ephemeral: 'ephemeralContainers' };

export function podRef(pod: PodMeta): EventObjectRef {
  return { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid, apiVersion: 'v1' };
}

/** `spec.containers{name}` (`spec.initContainers{name}` for an init container), as the kubelet refers to a container. */
export function containerRef(pod: PodMeta, container: string, kind: ContainerKind = 'container'): EventObjectRef {
  return { ...podRef(pod), fieldPath: `spec.${FIELD[kind]}{${container}}` };
}

/** The Node as an event's object: the kubelet refers to it by name with its name as UID until it knows better. */
export function nodeRef(name: string, uid: string = name): EventObjectRef {
  return { kind: 'Node', name, uid, apiVersion: 'v1' };
}

/** Standalone mode: the kubelet with no API server records nothing. */
export const NOOP_RECORDER: EventRecorder = { event: () => {} };

/** Standalone mode with the events in the log at V(4), where they cost nothing unless asked for. */
export function loggingRecorder(log: AgentLogger): EventRecorder {
  return {
    event: (ref, type, reason, message) => {
      log.v(4)?.info('Event occurred', { object: ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name, fieldPath: ref.fieldPath, kind: ref.kind, type, reason, message });
    },
  };
}
