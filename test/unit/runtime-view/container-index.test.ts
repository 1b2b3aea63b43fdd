// The container's spec index survives in its annotations, so a pod torn down
// without its spec (after an agent restart) still stops its sidecars in order.
import { describe, expect, it } from 'vitest';
import type { Container as RuntimeContainer } from '../../../src/cri/types.js';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import { ANN_CONTAINER_INDEX, containerAnnotations } from '../../../src/runtime-view/labels.js';
import { observeContainer } from '../../../src/runtime-view/observed.js';

const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', uid: 'u' }, spec: { initContainers: [{ name: 'i0', image: 'x' }, { name: 'i1', image: 'x', restartPolicy: 'Always' }], containers: [{ name: 'a', image: 'x' }] } });
if (!d.ok) throw new Error('fixture');
const pod = d.pod;
const raw = (annotations: Record<string, string>): RuntimeContainer => ({ id: 'c', podSandboxId: 's', metadata: { name: 'i1', attempt: 0 }, image: 'x', imageRef: 'x', state: 'RUNNING', createdAt: 1n, labels: {}, annotations });

describe('container spec index', () => {
  it('is recorded per list', () => {
    expect(containerAnnotations(pod, pod.spec.initContainers![1]!, 0, 'init')[ANN_CONTAINER_INDEX]).toBe('1');
    expect(containerAnnotations(pod, pod.spec.containers[0]!, 0, 'container')[ANN_CONTAINER_INDEX]).toBe('0');
  });
  it.each([
    ['1', 1],
    ['0', 0],
    ['', undefined],
    ['-1', undefined],
    ['x', undefined],
    [undefined, undefined],
  ])('annotation %j reads as %j', (text, want) => {
    expect(observeContainer(raw(text === undefined ? {} : { [ANN_CONTAINER_INDEX]: text })).specIndex).toBe(want);
  });
});
