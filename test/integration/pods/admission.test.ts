// Admission against the pod cap (--max-pods) across edits and removals of
// rejected pods. A static pod keeps its UID across edits here (see
// src/sources/static-pod.ts) where the kubelet gives the edited pod a new one
// and admits it as a new pod: an edit of a rejected pod is admitted afresh.
import { describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src/cri/fake-runtime.js';
import { IMAGE, manifest, start, stopFirst } from './harness.js';

describe('admission of rejected pods after edits and removals', () => {
  it('an edit of a pod rejected over the cap is admitted once a slot is free; while none is, its rejection is refreshed', async () => {
    const h = start({ maxPods: 1 });
    const a = manifest('a');
    const b = manifest('b');
    h.set([a, b]);
    await h.until(() => h.phase(a) === 'Running', 'a running');
    expect(h.status.get(b.metadata.uid)!.status).toMatchObject({ phase: 'Failed', reason: 'OutOfpods' });

    // Edited while the node is still full: rejected again, with the edited spec in its status.
    const b2 = manifest('b', { terminationGracePeriodSeconds: 7 });
    expect(b2.metadata.uid).toBe(b.metadata.uid);
    h.set([a, b2]);
    expect(h.status.get(b.metadata.uid)).toMatchObject({ pod: { spec: { terminationGracePeriodSeconds: 7 } }, status: { phase: 'Failed', reason: 'OutOfpods' } });
    expect(h.log.records.filter((r) => r.msg === 'Pod rejected at admission')).toHaveLength(2);

    // A slot frees up; the rejected manifest alone does not start (the kubelet does not retry rejected pods)...
    h.set([b2]);
    await h.until(() => h.runtime.sandboxes().length === 0, 'a torn down');
    expect(h.phase(b)).toBe('Failed');
    // ...but its next edit does.
    const b3 = manifest('b', { terminationGracePeriodSeconds: 3 });
    h.set([b3]);
    await h.until(() => h.phase(b3) === 'Running', 'edited b admitted and running');
    expect(h.status.get(b.metadata.uid)!.status.reason).toBeUndefined();
    expect(h.runtime.sandboxes()).toHaveLength(1);
  });

  it('an ADD of a pod whose earlier rejection is stale is admitted and runs', async () => {
    const h = start({ maxPods: 1 });
    const a = manifest('a');
    const b = manifest('b');
    h.manager.applyUpdates([{ op: 'ADD', pod: a, source: 'file' }, { op: 'ADD', pod: b, source: 'file' }]);
    await h.until(() => h.phase(a) === 'Running', 'a running');
    expect(h.phase(b)).toBe('Failed');
    h.manager.applyUpdates([{ op: 'REMOVE', pod: a, source: 'file' }]);
    // b comes again as a new pod (e.g. from another source once the first forgot it).
    h.manager.applyUpdates([{ op: 'ADD', pod: b, source: 'http' }]);
    await h.until(() => h.phase(b) === 'Running', 'b admitted and running');
  });

  it('a rejected pod removed from its source just loses its status: no teardown, nothing asked of the runtime', async () => {
    const h = start({ maxPods: 1 });
    const a = manifest('a');
    const b = manifest('b');
    h.set([a, b]);
    await h.until(() => h.phase(a) === 'Running', 'a running');
    await h.until(() => !h.manager.busy(), 'idle');
    const callsBefore = h.runtime.calls.filter((c) => c.method !== 'listContainers' && c.method !== 'listPodSandbox').length;
    h.set([a]);
    expect(h.status.get(b.metadata.uid)).toBeUndefined();
    await h.until(() => !h.manager.busy(), 'idle');
    const about = (uid: string) => h.log.records.filter((r) => r.fields['podUID'] === uid).map((r) => r.msg);
    expect(about(b.metadata.uid)).toEqual(['Pod rejected at admission', 'Rejected pod removed from its source; it never ran']);
    expect(h.runtime.calls.filter((c) => c.method !== 'listContainers' && c.method !== 'listPodSandbox').length).toBe(callsBefore);
  });

  it('a rejected pod that a previous agent left running is stopped as rejected, and keeps its rejected status', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const first = start({ runtime, maxPods: 2 });
    const a = manifest('a');
    const b = manifest('b');
    first.set([a, b]);
    await first.until(() => first.phase(a) === 'Running' && first.phase(b) === 'Running', 'both running');
    await stopFirst();

    const second = start({ runtime, maxPods: 1 });
    second.set([a, b]);
    await second.until(() => runtime.sandboxes().length === 1 && runtime.containers().length === 1, 'b torn down');
    await second.until(() => !second.manager.busy(), 'idle');
    const about = second.log.records.filter((r) => r.fields['podUID'] === b.metadata.uid).map((r) => r.msg);
    expect(about).toContain('Tearing down a pod rejected at admission');
    expect(about).not.toContain('Tearing down a pod no source declares');
    expect(second.status.get(b.metadata.uid)!.status).toMatchObject({ phase: 'Failed', reason: 'OutOfpods' });
    expect(second.phase(a)).toBe('Running');
  });
});
