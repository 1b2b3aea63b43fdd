// observeAll (the relist's read of the runtime): statuses are read only for
// entries whose state changed, and unchanged pods come back as the same objects.
import { describe, expect, it } from 'vitest';
import type { Container, ContainerStatus, PodSandbox, PodSandboxStatus, RuntimeService } from '../../../src/cri/types.js';
import { ANN_SANDBOX_HOST_NETWORK, LABEL_CONTAINER_NAME, LABEL_MANAGED, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../../../src/runtime-view/labels.js';
import { newStatusCache, observeAll, observePod } from '../../../src/runtime-view/observe.js';

const labels = (uid: string): Record<string, string> => ({ [LABEL_MANAGED]: 'true', [LABEL_POD_UID]: uid, [LABEL_POD_NAME]: `p-${uid}`, [LABEL_POD_NAMESPACE]: 'default', [LABEL_CONTAINER_NAME]: 'c' });
const sandbox = (uid: string, state = 'READY', annotations: Record<string, string> = {}): PodSandbox =>
  Object.freeze({ id: `sb-${uid}`, metadata: { name: `p-${uid}`, uid, namespace: 'default', attempt: 0 }, state, createdAt: 1n, labels: labels(uid), annotations, runtimeHandler: '' }) as unknown as PodSandbox;
const container = (uid: string, state = 'RUNNING'): Container =>
  Object.freeze({ id: `c-${uid}`, podSandboxId: `sb-${uid}`, metadata: { name: 'c', attempt: 0 }, image: 'busybox', imageRef: 'sha256:1', state, createdAt: 2n, labels: labels(uid), annotations: {} }) as unknown as Container;

const selects = (f: { labelSelector?: Record<string, string> } | undefined, labels: Record<string, string>): boolean => Object.entries(f?.labelSelector ?? {}).every(([k, v]) => labels[k] === v);

/** A runtime whose list answers are whatever the test put there (the same objects until replaced), counting status reads. */
function stubRuntime(sandboxes: PodSandbox[], containers: Container[]) {
  const counts = { podSandboxStatus: 0, containerStatus: 0 };
  const rt = {
    listPodSandbox: async (f?: { labelSelector?: Record<string, string> }) => sandboxes.filter((x) => selects(f, x.labels)),
    listContainers: async (f?: { labelSelector?: Record<string, string> }) => containers.filter((x) => selects(f, x.labels)),
    podSandboxStatus: async () => {
      counts.podSandboxStatus++;
      return { ip: '10.0.0.1', additionalIps: [], namespaceOptions: { network: 'POD' } } as unknown as PodSandboxStatus;
    },
    containerStatus: async () => {
      counts.containerStatus++;
      return { state: 'RUNNING', startedAt: 5n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'busybox', imageRef: 'sha256:1' } as unknown as ContainerStatus;
    },
  } as unknown as RuntimeService;
  return { rt, counts };
}

describe('observeAll', () => {
  it('reads statuses once per state and hands back the same objects while nothing changes', async () => {
    const sbs = [sandbox('a'), sandbox('b')];
    const cts = [container('a'), container('b')];
    const { rt, counts } = stubRuntime(sbs, cts);
    const cache = newStatusCache();
    const signal = new AbortController().signal;

    const first = await observeAll(rt, cache, signal);
    expect(counts).toEqual({ podSandboxStatus: 2, containerStatus: 2 });
    expect(first.get('a')!.sandboxes[0]!.ip).toBe('10.0.0.1');
    expect(first.get('a')!.containers[0]!.startedAt).toBe(5n);

    const second = await observeAll(rt, cache, signal);
    expect(second).toBe(first);
    expect(counts).toEqual({ podSandboxStatus: 2, containerStatus: 2 });

    // b's container exits: a new answer in which only b is a new object, and only b's container is read again.
    cts[1] = container('b', 'EXITED');
    const third = await observeAll(rt, cache, signal);
    expect(third).not.toBe(first);
    expect(third.get('a')).toBe(first.get('a'));
    expect(third.get('b')).not.toBe(first.get('b'));
    expect(counts).toEqual({ podSandboxStatus: 2, containerStatus: 3 });

    // b goes away entirely.
    sbs.pop();
    cts.pop();
    const fourth = await observeAll(rt, cache, signal);
    expect([...fourth.keys()]).toEqual(['a']);
    expect(fourth.get('a')).toBe(first.get('a'));
  });

  it('the same entries listed in another order are the previous answer; one pod replaced by another at the same count is not', async () => {
    const sbs = [sandbox('a'), sandbox('b')];
    const cts = [container('a'), container('b')];
    const { rt } = stubRuntime(sbs, cts);
    const cache = newStatusCache();
    const signal = new AbortController().signal;
    const first = await observeAll(rt, cache, signal);

    sbs.reverse();
    cts.reverse();
    expect(await observeAll(rt, cache, signal)).toBe(first);

    sbs.splice(0, 1, sandbox('c'));
    cts.splice(0, 1, container('c'));
    const swapped = await observeAll(rt, cache, signal);
    expect(swapped).not.toBe(first);
    expect([...swapped.keys()].sort()).toEqual(['a', 'c']);
    expect(swapped.get('a')).toBe(first.get('a'));
  });

  it("reads no status for a sandbox annotated as on the host's network; reads it for pod-network and unannotated ones", async () => {
    const sbs = [sandbox('h', 'READY', { [ANN_SANDBOX_HOST_NETWORK]: 'true' }), sandbox('p', 'READY', { [ANN_SANDBOX_HOST_NETWORK]: 'false' }), sandbox('old')];
    const { rt, counts } = stubRuntime(sbs, []);
    const signal = new AbortController().signal;
    const seen = await observeAll(rt, newStatusCache(), signal);
    expect(counts.podSandboxStatus).toBe(2);
    expect(seen.get('h')!.sandboxes[0]).toMatchObject({ hostNetwork: true, ip: '', ready: true });
    expect(seen.get('p')!.sandboxes[0]).toMatchObject({ hostNetwork: false, ip: '10.0.0.1' });
    expect(seen.get('old')!.sandboxes[0]).toMatchObject({ hostNetwork: false, ip: '10.0.0.1' });

    // The same holds for a sync's fresh read of one pod, and for a host-network sandbox that stopped.
    sbs[0] = sandbox('h', 'NOTREADY', { [ANN_SANDBOX_HOST_NETWORK]: 'true' });
    expect((await observePod(rt, 'h', signal)).sandboxes[0]).toMatchObject({ hostNetwork: true, ready: false });
    expect(counts.podSandboxStatus).toBe(2);
  });
});
