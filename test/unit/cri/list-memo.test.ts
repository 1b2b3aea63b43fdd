// The list decoder the CRI client uses for ListContainers and ListPodSandbox:
// same result as a whole decode, unchanged entries reused, changed ones fresh.
import { beforeAll, describe, expect, it } from 'vitest';
import { ListMemo } from '../../../src/cri/list-memo.js';
import { METHODS } from '../../../src/cri/methods.js';
import { decodeMessage, encodeMessage, loadCriProto, type CriProto } from '../../../src/cri/proto.js';
import type { Container, PodSandbox } from '../../../src/cri/types.js';

let proto: CriProto;
beforeAll(async () => {
  proto = await loadCriProto();
});

const container = (id: string, state: Container['state'] = 'RUNNING'): Container => ({
  id,
  podSandboxId: `sb-${id}`,
  metadata: { name: `c-${id}`, attempt: 1 },
  image: 'localhost/busybox:latest',
  imageRef: 'sha256:abc',
  state,
  createdAt: 1_700_000_000_000_000_000n,
  labels: { 'io.platform.pod.uid': `uid-${id}`, 'io.platform.container.name': `c-${id}` },
  annotations: { 'io.platform.container.hash': 'h1', 'io.platform.container.restartCount': '1' },
});

const containersAnswer = (cs: Container[]): Buffer => encodeMessage(proto.type('ListContainersResponse'), METHODS.listContainers.encodeResponse(cs));
const containersMemo = () => new ListMemo<Container>(proto.reader, 1, proto.type('Container'), 6, METHODS.listContainers.listEntries!.convert as (w: never) => Container);

describe('ListMemo', () => {
  it('decodes like the whole-message decoder', () => {
    const cs = [container('a'), container('b', 'EXITED'), container('c')];
    const bytes = containersAnswer(cs);
    const whole = METHODS.listContainers.decodeResponse(decodeMessage(proto.type('ListContainersResponse'), bytes));
    expect(containersMemo().decode(bytes)).toEqual(whole);
    expect(whole).toEqual(cs);
  });

  it('reuses the entries whose bytes are unchanged and decodes the changed and new ones', () => {
    const memo = containersMemo();
    const [a1, b1] = memo.decode(containersAnswer([container('a'), container('b')]));
    const [b2, a2, c2] = memo.decode(containersAnswer([container('b', 'EXITED'), container('a'), container('c')]));
    expect(a2).toBe(a1); // order changed, bytes did not
    expect(b2).not.toBe(b1);
    expect(b2!.state).toBe('EXITED');
    expect(c2!.id).toBe('c');
    expect(Object.isFrozen(a2) && Object.isFrozen(a2!.labels)).toBe(true);
  });

  it('an entry whose map entries come in another order is the same entry (containerd writes Go maps in random order)', () => {
    const memo = containersMemo();
    const a = container('a');
    const reordered: Container = { ...a, labels: Object.fromEntries(Object.entries(a.labels).reverse()), annotations: Object.fromEntries(Object.entries(a.annotations).reverse()) };
    const b1 = containersAnswer([a]);
    const b2 = containersAnswer([reordered]);
    expect(b2.equals(b1)).toBe(false);
    const [first] = memo.decode(b1);
    expect(memo.decode(b2)[0]).toBe(first);
    // CRI never changes anything but the state of an existing entry; an answer that
    // does anyway (here a label of another length) is decoded afresh.
    const [changed] = memo.decode(containersAnswer([{ ...reordered, labels: { ...reordered.labels, 'io.platform.container.name': 'other' } }]));
    expect(changed).not.toBe(first);
    expect(changed!.labels['io.platform.container.name']).toBe('other');
  });

  it('every state change is a change, including to and from state 0 (which proto3 leaves off the wire)', () => {
    const memo = containersMemo();
    const seen = (['CREATED', 'RUNNING', 'EXITED', 'UNKNOWN', 'CREATED'] as const).map((state) => memo.decode(containersAnswer([container('a', state)]))[0]!);
    expect(seen.map((c) => c.state)).toEqual(['CREATED', 'RUNNING', 'EXITED', 'UNKNOWN', 'CREATED']);
    expect(new Set(seen).size).toBe(5);
    expect(memo.decode(containersAnswer([container('a', 'CREATED')]))[0]).toBe(seen[4]);
  });

  it('an empty answer is an empty list; entries idle for 64 answers are forgotten', () => {
    const memo = containersMemo();
    memo.decode(containersAnswer([container('gone')]));
    expect(memo.size).toBe(1);
    for (let i = 0; i < 130; i++) expect(memo.decode(containersAnswer([]))).toEqual([]);
    expect(memo.size).toBe(0);
  });

  it('an answer cut short inside an entry is an error, not a shorter list; the memo still works after it', () => {
    const memo = containersMemo();
    const whole = containersAnswer([container('a'), container('b')]);
    expect(() => memo.decode(whole.subarray(0, whole.length - 5))).toThrow(RangeError);
    expect(memo.decode(whole).map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('ListPodSandbox entries too', () => {
    const sb: PodSandbox = {
      id: 's1',
      metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 0 },
      state: 'READY',
      createdAt: 5n,
      labels: { x: 'y' },
      annotations: {},
      runtimeHandler: '',
    };
    const bytes = encodeMessage(proto.type('ListPodSandboxResponse'), METHODS.listPodSandbox.encodeResponse([sb]));
    const memo = new ListMemo<PodSandbox>(proto.reader, 1, proto.type('PodSandbox'), 3, METHODS.listPodSandbox.listEntries!.convert as (w: never) => PodSandbox);
    const first = memo.decode(bytes);
    expect(first).toEqual([sb]);
    expect(memo.decode(bytes)[0]).toBe(first[0]);
    const stopped = memo.decode(encodeMessage(proto.type('ListPodSandboxResponse'), METHODS.listPodSandbox.encodeResponse([{ ...sb, state: 'NOTREADY' }])));
    expect(stopped[0]!.state).toBe('NOTREADY');
  });
});
