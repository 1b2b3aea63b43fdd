// What publishing a status logs: a phase change, a container newly waiting,
// and a change of the pod's Ready condition (not a pod that starts not ready).
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { ObservedContainer, ObservedPod } from '../../../src/runtime-view/observed.js';
import { createStatusStore, publishPodStatus } from '../../../src/status/index.js';
import type { ProbeResultsView } from '../../../src/probes/view.js';
import { testLogger } from '../../helpers/test-logger.js';

const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { hostNetwork: true, containers: [{ name: 'a', image: 'i:1', readinessProbe: { exec: { command: ['true'] } } }] } });
if (!d.ok) throw new Error('fixture');
const pod = d.pod;
const running: ObservedContainer = { id: 'c1', name: 'a', sandboxId: 's', type: 'container', state: 'RUNNING', hash: '', restartCount: 0, createdAt: 1n, startedAt: 1n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'i:1', imageRef: 'sha256:1' };
const observed = (cs: ObservedContainer[]): ObservedPod => ({ uid: 'u', name: 'p', namespace: 'default', sandboxes: [{ id: 's', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: '' }], containers: cs });

describe('publishPodStatus', () => {
  it('logs the Ready condition when it changes, both ways, and not while it stays', () => {
    const store = createStatusStore();
    const log = testLogger();
    let readiness: 'success' | 'failure' | undefined;
    const probes: ProbeResultsView = { get: (kind) => (kind === 'readiness' ? readiness : undefined) };
    const publish = (cs: ObservedContainer[]) => publishPodStatus(store, log, { pod, observed: observed(cs), waiting: new Map(), runtimeName: 'containerd', hostIP: '127.0.0.1', now: new Date(0), probes });
    const readyLines = () => log.records.filter((r) => r.msg === 'Pod readiness changed').map((r) => r.fields);
    publish([]);
    publish([running]);
    expect(readyLines()).toEqual([]);
    readiness = 'success';
    publish([running]);
    publish([running]);
    expect(readyLines()).toEqual([{ pod: 'default/p', podUID: 'u', ready: true }]);
    readiness = 'failure';
    publish([running]);
    expect(readyLines().at(-1)).toEqual({ pod: 'default/p', podUID: 'u', ready: false, reason: 'ContainersNotReady' });
    expect(readyLines()).toHaveLength(2);
  });

  it('stores a status only when it differs: an unchanged resync leaves the store (and its version) alone', () => {
    const store = createStatusStore();
    const log = testLogger();
    const probes: ProbeResultsView = { get: () => undefined };
    const publish = (cs: ObservedContainer[], p = pod) => publishPodStatus(store, log, { pod: p, observed: observed(cs), waiting: new Map(), runtimeName: 'containerd', hostIP: '127.0.0.1', now: new Date(0), probes });
    publish([running]);
    const v = store.version;
    const first = store.get('u');
    publish([running]);
    expect(store.version).toBe(v);
    expect(store.get('u')).toBe(first);
    publish([{ ...running, restartCount: 1 }]);
    expect(store.version).toBe(v + 1);
    // The same status for a new pod object (an edit that left the status alone) is stored: /pods shows the spec too.
    publish([{ ...running, restartCount: 1 }], { ...pod });
    expect(store.version).toBe(v + 2);
  });
});

