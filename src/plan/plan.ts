// The node's sync plan as data and as text (`agent --print-plan`): for each
// pod the sources declare, what the sync loop would do now — the pure
// decision the loop itself uses (computePodActions), shown to the operator —
// and for each pod the runtime holds that no source declares, its teardown.
// Pure: the caller (collect.ts) reads the sources and the runtime once.
import type { Pod } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import { computePodActions } from '../pods/actions.js';
import type { ObservedPod } from '../runtime-view/observed.js';

/** Where a declared pod stands before any action: what the plan was computed from. */
export interface DeclaredPod {
  readonly pod: Pod;
  /** Where it came from (a manifest file, the URL). */
  readonly origin: string;
  /** Rejected at admission: it would never run here. */
  readonly rejected?: { readonly reason: string; readonly message: string };
  /** Volumes it would wait for, with why (a failed hostPath check, a kind this node cannot serve). */
  readonly volumeWaits?: ReadonlyArray<{ readonly volume: string; readonly message: string }>;
}

export interface PlanInput {
  readonly declared: readonly DeclaredPod[];
  /** What the runtime holds, by pod UID. */
  readonly observed: ReadonlyMap<string, ObservedPod>;
  /** Whether an image is present in the runtime now (by the reference the pod names). */
  readonly imagePresent: (image: string) => boolean;
  /** Sources that gave no answer: their pods are unknown, so nothing is torn down as an orphan. */
  readonly unreadSources: readonly string[];
  /** The SidecarContainers feature gate, as the sync loop runs with it. */
  readonly sidecars?: boolean;
}

export type PodVerdict = 'start' | 'change' | 'in-sync' | 'wait' | 'reject' | 'finished' | 'teardown' | 'keep';

export interface PodPlan {
  /** `namespace/name` (or the runtime's name for a pod no source declares). */
  readonly pod: string;
  readonly uid: string;
  readonly origin: string;
  readonly verdict: PodVerdict;
  /** The actions in the order the sync takes them, one line each. */
  readonly steps: readonly string[];
}

const countOf = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

function pullStep(image: string, policy: Pod['spec']['containers'][number]['imagePullPolicy'], present: boolean): string | undefined {
  if (policy === 'Always') return `pull image ${image} (imagePullPolicy Always)`;
  if (present) return undefined;
  if (policy === 'Never') return `wait: image ${image} is not present and imagePullPolicy is Never (ErrImageNeverPull)`;
  return `pull image ${image} (not present)`;
}

/** The plan of one declared pod. */
export function planDeclared(d: DeclaredPod, input: Pick<PlanInput, 'observed' | 'imagePresent' | 'sidecars'>): PodPlan {
  const { pod } = d;
  const base = { pod: podRef(pod), uid: pod.metadata.uid, origin: d.origin };
  if (d.rejected) return { ...base, verdict: 'reject', steps: [`reject at admission: ${d.rejected.reason}: ${d.rejected.message}`] };
  const observed = input.observed.get(pod.metadata.uid) ?? { uid: pod.metadata.uid, name: pod.metadata.name, namespace: pod.metadata.namespace, sandboxes: [], containers: [] };
  // No probe has a result in a plan: a container is judged by its state alone.
  const actions = computePodActions(pod, observed, { sidecars: input.sidecars === true });
  const steps: string[] = [];
  const running = observed.containers.filter((c) => c.state === 'RUNNING').length;
  const readySandboxes = observed.sandboxes.filter((s) => s.ready).length;
  if (actions.killPod && (running > 0 || readySandboxes > 0)) {
    const why = actions.createSandbox ? 'its sandbox must be recreated' : 'it has nothing left to run';
    steps.push(`stop the pod (${countOf(running, 'running container')}, ${countOf(readySandboxes, 'ready sandbox')}): ${why}`);
  } else {
    for (const k of actions.containersToKill) steps.push(`kill container ${k.name} (${k.reason}): ${k.message}`);
  }
  const waits = d.volumeWaits ?? [];
  if (waits.length > 0 && (actions.createSandbox || actions.containersToStart.length > 0)) {
    for (const w of waits) steps.push(`wait for volume ${w.volume}: ${w.message}`);
    return { ...base, verdict: 'wait', steps };
  }
  if (actions.createSandbox) steps.push(`create sandbox (attempt ${actions.sandboxAttempt})`);
  for (const s of actions.containersToStart) {
    const spec = (s.type === 'init' ? pod.spec.initContainers : pod.spec.containers)![s.index]!;
    const pull = pullStep(spec.image, spec.imagePullPolicy, input.imagePresent(spec.image));
    if (pull) steps.push(pull);
    const kind = s.type === 'init' ? 'init container' : 'container';
    steps.push(`start ${kind} ${s.name}${s.restartCount > 0 ? ` (restart ${s.restartCount})` : ''}`);
  }
  if (steps.length > 0) {
    const fresh = observed.sandboxes.length === 0 && observed.containers.length === 0;
    return { ...base, verdict: fresh ? 'start' : 'change', steps };
  }
  const finished = running === 0 && observed.containers.length > 0;
  return { ...base, verdict: finished ? 'finished' : 'in-sync', steps: [finished ? 'nothing to do: its containers have finished and its restart policy does not restart them' : `nothing to do: ${countOf(running, 'container')} running as declared`] };
}

/** The plan of a pod the runtime holds and no source declares. */
export function planOrphan(o: ObservedPod, unreadSources: readonly string[]): PodPlan {
  const name = o.namespace !== '' || o.name !== '' ? `${o.namespace}/${o.name}` : `(unnamed pod ${o.uid})`;
  const held = `${countOf(o.containers.length, 'container')}, ${countOf(o.sandboxes.length, 'sandbox')}`;
  if (unreadSources.length > 0) {
    return { pod: name, uid: o.uid, origin: 'runtime', verdict: 'keep', steps: [`keep for now (${held}): no source declares it, but ${unreadSources.join(' and ')} could not be read, and a pod is only torn down once every source has answered`] };
  }
  return { pod: name, uid: o.uid, origin: 'runtime', verdict: 'teardown', steps: [`stop and remove (${held}): no source declares it`] };
}

/** Every pod's plan: the declared ones in the sources' order, then the runtime's pods no source declares. */
export function planNode(input: PlanInput): PodPlan[] {
  const declared = new Set(input.declared.map((d) => d.pod.metadata.uid));
  const out = input.declared.map((d) => planDeclared(d, input));
  for (const [uid, o] of input.observed) if (!declared.has(uid)) out.push(planOrphan(o, input.unreadSources));
  return out;
}

const HEADINGS: Record<PodVerdict, string> = {
  start: 'to start',
  change: 'to change',
  'in-sync': 'in sync',
  wait: 'waiting',
  reject: 'rejected',
  finished: 'finished',
  teardown: 'to tear down',
  keep: 'not declared',
};

/** The plan as the operator reads it: one block per pod, its steps indented. */
export function renderPlan(plans: readonly PodPlan[], notes: readonly string[]): string {
  const lines: string[] = [];
  for (const n of notes) lines.push(`# ${n}`);
  if (plans.length === 0) lines.push('No pods: no source declares any and the runtime holds none.');
  for (const p of plans) {
    lines.push(`pod ${p.pod} (uid ${p.uid}, ${p.origin}): ${HEADINGS[p.verdict]}`);
    for (const s of p.steps) lines.push(`  - ${s}`);
  }
  const counts = new Map<PodVerdict, number>();
  for (const p of plans) counts.set(p.verdict, (counts.get(p.verdict) ?? 0) + 1);
  // In a fixed order (what changes first), so two plans read alike.
  const order = Object.keys(HEADINGS) as PodVerdict[];
  if (plans.length > 0) lines.push(`Summary: ${order.filter((v) => counts.has(v)).map((v) => `${counts.get(v)} ${HEADINGS[v]}`).join(', ')}. Nothing was changed.`);
  return lines.join('\n') + '\n';
}
