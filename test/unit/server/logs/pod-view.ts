// Pods with a chosen container status, as the status store holds them, for the log routes' tests.
import { decodePod } from '../../../../src/pod-model/pod-decode.js';
import type { ContainerStatus, PodStatus } from '../../../../src/pod-model/pod-types.js';
import type { PodView } from '../../../../src/server/logs/locate.js';

export function podView(name: string, statuses: Array<Partial<ContainerStatus> & { name: string }>, o: { namespace?: string; uid?: string; containers?: string[]; init?: string[] } = {}): PodView {
  const containers = (o.containers ?? statuses.map((s) => s.name)).map((n) => ({ name: n, image: 'busybox' }));
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: o.uid ?? `uid-${name}` },
    spec: { containers, ...(o.init ? { initContainers: o.init.map((n) => ({ name: n, image: 'busybox' })) } : {}) },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  const status: PodStatus = {
    phase: 'Running',
    conditions: [],
    containerStatuses: statuses.map((s) => ({ state: {}, lastState: {}, ready: false, restartCount: 0, image: 'busybox', imageID: '', ...s })),
  };
  return { pod: d.pod, status };
}
