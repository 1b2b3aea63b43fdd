// The --print-plan decisions, table-driven: a declared pod × what the runtime
// holds → the verdict and the steps shown to the operator; the runtime's pods
// no source declares; the rendering.
import { describe, expect, it } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { planDeclared, planNode, planOrphan, renderPlan, type DeclaredPod } from '../../../src/plan/index.js';
import { containerHash, sandboxHash } from '../../../src/runtime-view/labels.js';
import type { ObservedContainer, ObservedPod } from '../../../src/runtime-view/observed.js';

function pod(o: { image?: string; pull?: string; restart?: string; init?: boolean } = {}): Pod {
  const d = decodePod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: {
      hostNetwork: true,
      restartPolicy: o.restart ?? 'Always',
      ...(o.init ? { initContainers: [{ name: 'setup', image: 'tools:1' }] } : {}),
      containers: [{ name: 'app', image: o.image ?? 'app:1', ...(o.pull ? { imagePullPolicy: o.pull } : {}) }],
    },
  });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

const running = (p: Pod, o: Partial<ObservedContainer> = {}): ObservedPod => ({
  uid: 'u1',
  name: 'web',
  namespace: 'default',
  sandboxes: [{ id: 's1', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: sandboxHash(p) }],
  containers: [
    { id: 'c1', name: 'app', sandboxId: 's1', type: 'container', state: 'RUNNING', hash: containerHash(p.spec.containers[0]!), restartCount: 0, createdAt: 2n, startedAt: 2n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: 'app:1', imageRef: 'sha256:1', ...o },
  ],
});

const stopped = (o: ObservedPod): ObservedPod => ({ ...o, sandboxes: o.sandboxes.map((s) => ({ ...s, ready: false })) });
const declared = (p: Pod, extra: Partial<DeclaredPod> = {}): DeclaredPod => ({ pod: p, origin: 'from --pod-manifest-path', ...extra });
const present = (...images: string[]) => (image: string) => images.includes(image);

describe('planDeclared', () => {
  it.each<[string, DeclaredPod, ObservedPod | undefined, (i: string) => boolean, string, string[]]>([
    ['missing pod, image present', declared(pod()), undefined, present('app:1'), 'start', ['create sandbox (attempt 0)', 'start container app']],
    ['missing pod, image absent', declared(pod()), undefined, present(), 'start', ['create sandbox (attempt 0)', 'pull image app:1 (not present)', 'start container app']],
    ['missing pod, policy Always pulls even when present', declared(pod({ pull: 'Always' })), undefined, present('app:1'), 'start', ['create sandbox (attempt 0)', 'pull image app:1 (imagePullPolicy Always)', 'start container app']],
    ['missing pod, policy Never and image absent', declared(pod({ pull: 'Never' })), undefined, present(), 'start', ['create sandbox (attempt 0)', 'wait: image app:1 is not present and imagePullPolicy is Never (ErrImageNeverPull)', 'start container app']],
    ['missing pod with an init container: only the first init starts', declared(pod({ init: true })), undefined, present('app:1', 'tools:1'), 'start', ['create sandbox (attempt 0)', 'start init container setup']],
    ['running as declared', declared(pod()), running(pod()), present('app:1'), 'in-sync', ['nothing to do: 1 container running as declared']],
    ['spec changed: kill and start', declared(pod({ image: 'app:2' })), running(pod()), present('app:1', 'app:2'), 'change', ['kill container app (Changed): Container app definition changed, will be restarted', 'start container app (restart 1)']],
    ['exited under Never, sandbox still up: the sandbox stops', declared(pod({ restart: 'Never' })), running(pod({ restart: 'Never' }), { state: 'EXITED', exitCode: 0 }), present('app:1'), 'change', ['stop the pod (0 running containers, 1 ready sandbox): it has nothing left to run']],
    ['exited under Never, sandbox stopped: finished', declared(pod({ restart: 'Never' })), stopped(running(pod({ restart: 'Never' }), { state: 'EXITED', exitCode: 0 })), present('app:1'), 'finished', ['nothing to do: its containers have finished and its restart policy does not restart them']],
    ['rejected at admission', declared(pod(), { rejected: { reason: 'OutOfpods', message: 'no room' } }), undefined, present(), 'reject', ['reject at admission: OutOfpods: no room']],
    ['a volume it must wait for', declared(pod(), { volumeWaits: [{ volume: 'data', message: 'hostPath type check failed: /x is not a directory' }] }), undefined, present('app:1'), 'wait', ['wait for volume data: hostPath type check failed: /x is not a directory']],
  ])('%s', (_name, d, obs, imagePresent, verdict, steps) => {
    const plan = planDeclared(d, { observed: new Map(obs ? [['u1', obs]] : []), imagePresent });
    expect(plan.verdict).toBe(verdict);
    expect(plan.steps).toEqual(steps);
    expect(plan).toMatchObject({ pod: 'default/web', uid: 'u1' });
  });
});

describe('planOrphan and planNode', () => {
  const orphan: ObservedPod = { ...running(pod()), uid: 'u9', name: 'old', namespace: 'kube' };
  it('tears down a runtime pod no source declares, once every source answered', () => {
    expect(planOrphan(orphan, [])).toEqual({ pod: 'kube/old', uid: 'u9', origin: 'runtime', verdict: 'teardown', steps: ['stop and remove (1 container, 1 sandbox): no source declares it'] });
  });
  it('keeps it while a source could not be read', () => {
    const p = planOrphan(orphan, ['http']);
    expect(p.verdict).toBe('keep');
    expect(p.steps[0]).toMatch(/^keep for now \(1 container, 1 sandbox\): no source declares it, but http could not be read/);
  });
  it('plans declared pods first, then the runtime pods no source declares, and renders them with a summary', () => {
    const plans = planNode({ declared: [declared(pod())], observed: new Map([['u1', running(pod())], ['u9', orphan]]), imagePresent: present('app:1'), unreadSources: [] });
    expect(plans.map((p) => [p.pod, p.verdict])).toEqual([['default/web', 'in-sync'], ['kube/old', 'teardown']]);
    expect(renderPlan(plans, ['node n1 (127.0.0.1)'])).toBe(
      [
        '# node n1 (127.0.0.1)',
        'pod default/web (uid u1, from --pod-manifest-path): in sync',
        '  - nothing to do: 1 container running as declared',
        'pod kube/old (uid u9, runtime): to tear down',
        '  - stop and remove (1 container, 1 sandbox): no source declares it',
        'Summary: 1 in sync, 1 to tear down. Nothing was changed.',
        '',
      ].join('\n'),
    );
  });
  it('says so when there is nothing at all', () => {
    expect(renderPlan([], [])).toBe('No pods: no source declares any and the runtime holds none.\n');
  });
});
