// --runonce (the kubelet's RunOnce): start the pods of the local sources, wait
// until each has run, report each pod on one line, exit. A pod has run when
// it Succeeded, or is Running with every app container running and, where a
// container has a readiness probe, ready (init containers done first: the
// phase stays Pending until they are). The verdict is pure (table-tested);
// the wait reads the status store and wakes on its changes.
import type { Pod, PodStatus } from '../pod-model/pod-types.js';
import { podRef } from '../pod-model/pod-types.js';
import type { AgentLogger } from '../log/index.js';
import type { StatusStore } from '../status/index.js';

/** How long --runonce waits for its pods to run (the kubelet retries for minutes; one minute bounds a boot step). */
export const RUN_ONCE_TIMEOUT_MS = 60_000;

export type RunOnceResult = 'running' | 'succeeded' | 'failed' | 'rejected' | 'not-ready' | 'not-running';

export interface RunOnceVerdict {
  /** Nothing more will change the verdict by waiting (it ran, succeeded, or failed for good). */
  readonly settled: boolean;
  /** The pod counts as run. */
  readonly ok: boolean;
  readonly result: RunOnceResult;
  /** What the operator reads after the result: why it is not running, or which containers run. */
  readonly detail: string;
}

const waitingOf = (s: PodStatus): string[] =>
  [...(s.initContainerStatuses ?? []).map((c) => ({ ...c, init: true })), ...s.containerStatuses.map((c) => ({ ...c, init: false }))]
    .filter((c) => c.state.waiting || (c.init && c.state.terminated && c.state.terminated.exitCode !== 0))
    .map((c) => `${c.init ? 'init container ' : ''}${c.name}: ${c.state.waiting?.reason ?? `exited ${c.state.terminated?.exitCode}`}${c.state.waiting?.message ? ` (${c.state.waiting.message})` : ''}`);

/** The verdict on one pod from its spec and its latest status (undefined: none published yet). */
export function runOnceVerdict(pod: Pod, status: PodStatus | undefined): RunOnceVerdict {
  if (status === undefined) return { settled: false, ok: false, result: 'not-running', detail: 'no status yet' };
  if (status.phase === 'Succeeded') return { settled: true, ok: true, result: 'succeeded', detail: 'every container exited 0' };
  if (status.phase === 'Failed') {
    // A pod with no container statuses failed before it ran: admission refused it.
    if (status.containerStatuses.length === 0 && status.reason) return { settled: true, ok: false, result: 'rejected', detail: `${status.reason}: ${status.message ?? ''}`.trim() };
    const exits = status.containerStatuses.filter((c) => c.state.terminated && c.state.terminated.exitCode !== 0).map((c) => `${c.name} exited ${c.state.terminated!.exitCode}`);
    return { settled: true, ok: false, result: 'failed', detail: [...exits, ...waitingOf(status)].join('; ') || (status.message ?? 'failed') };
  }
  if (status.phase === 'Running') {
    const stopped = status.containerStatuses.filter((c) => !c.state.running).map((c) => c.name);
    if (stopped.length === 0) {
      const probed = new Set(pod.spec.containers.filter((c) => c.readinessProbe).map((c) => c.name));
      const unready = status.containerStatuses.filter((c) => probed.has(c.name) && !c.ready).map((c) => c.name);
      if (unready.length === 0) return { settled: true, ok: true, result: 'running', detail: `${status.containerStatuses.length} running${probed.size > 0 ? ', ready' : ''}` };
      return { settled: false, ok: false, result: 'not-ready', detail: `not ready: ${unready.join(', ')}` };
    }
    return { settled: false, ok: false, result: 'not-running', detail: waitingOf(status).join('; ') || `not running: ${stopped.join(', ')}` };
  }
  return { settled: false, ok: false, result: 'not-running', detail: waitingOf(status).join('; ') || `phase ${status.phase}` };
}

export interface RunOnceInputs {
  readonly status: StatusStore;
  /** The pods the sources declare (after admission). */
  readonly desired: () => Pod[];
  readonly allSourcesSeen: () => boolean;
  readonly log: AgentLogger;
  readonly timeoutMs?: number;
}

/** A pod's line in the summary. */
export interface RunOnceReport extends RunOnceVerdict {
  readonly pod: string;
  readonly uid: string;
}

/** Every pod --runonce answers for: the desired ones and the ones admission rejected (they have a Failed status). */
function reports(inp: RunOnceInputs): RunOnceReport[] {
  const out = new Map<string, RunOnceReport>();
  for (const p of inp.desired()) out.set(p.metadata.uid, { pod: podRef(p), uid: p.metadata.uid, ...runOnceVerdict(p, inp.status.get(p.metadata.uid)?.status) });
  for (const { pod, status } of inp.status.all()) if (!out.has(pod.metadata.uid)) out.set(pod.metadata.uid, { pod: podRef(pod), uid: pod.metadata.uid, ...runOnceVerdict(pod, status) });
  return [...out.values()];
}

/**
 * Waits until every source has answered and every pod is settled (or the
 * timeout, or `signal`), logs one line per pod and a final line; resolves
 * with the exit code: 0 only when every pod runs or succeeded.
 */
export async function awaitRunOnce(inp: RunOnceInputs, signal: AbortSignal): Promise<number> {
  const settled = (): boolean => inp.allSourcesSeen() && reports(inp).every((r) => r.settled);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      clearInterval(tick);
      unsubscribe();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const check = (): void => {
      if (settled()) done();
    };
    const timer = setTimeout(done, inp.timeoutMs ?? RUN_ONCE_TIMEOUT_MS);
    // Statuses wake the check; the tick covers the sources' first answers, which publish none.
    const unsubscribe = inp.status.subscribe(check);
    const tick = setInterval(check, 250);
    signal.addEventListener('abort', done, { once: true });
    check();
  });
  const all = reports(inp);
  for (const r of all) (r.ok ? inp.log.info.bind(inp.log) : inp.log.error.bind(inp.log))('Run once pod result', { pod: r.pod, podUID: r.uid, result: r.result, detail: r.detail });
  const ok = all.every((r) => r.ok);
  const failed = all.filter((r) => !r.ok).length;
  if (ok) inp.log.info('Run once finished: pods are running', { pods: all.length });
  else inp.log.error('Run once finished: some pods did not run', { pods: all.length, failed });
  return ok ? 0 : 1;
}
