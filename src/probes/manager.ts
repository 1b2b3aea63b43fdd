// The prober manager (the kubelet's prober_manager.go and results cache):
// one worker per probed container and probe kind, the latest verdict per
// container instance (CRI container ID), and a callback when a verdict
// changes so the sync loop acts on it (a restart after a liveness or startup
// failure, Ready after a readiness change).
//
// Callers: the composition root calls observe() after every relist with the
// pods the sources want and what the runtime holds (idempotent, never
// blocks); the pod wing reads get() during every sync. Workers run only
// between run(signal) and the abort of that signal; run() resolves once all
// have ended.
import type { RuntimeService } from '../cri/types.js';
import { defineComponent, type Component } from '../lifecycle/component.js';
import { waitForAbort } from '../lifecycle/abort.js';
import type { AgentLogger } from '../log/index.js';
import type { EventRecorder } from '../events/index.js';
import type { Container, Pod } from '../pod-model/pod-types.js';
import type { ObservedPod } from '../runtime-view/observed.js';
import { ProbeCounters, ProbeTiming } from './metrics.js';
import { runAction, userAgentFor } from './run-action.js';
import type { ProbeKind, ProbeOutcome, ProbeResultsView } from './view.js';
import { ProbeWorker, SYSTEM_CLOCK, type ProbeClock, type WorkerHost } from './worker.js';
import { INITIAL_OUTCOME, type ContainerView, type ResultEffect } from './worker-state.js';

export interface ProberOptions {
  readonly runtime: Pick<RuntimeService, 'execSync'>;
  /** The node's IP: where a host-network pod's probes connect. */
  readonly hostIP: string;
  readonly log: AgentLogger;
  /** A verdict of one of the pod's containers changed: its sync must act on it. Called synchronously; must not block. */
  readonly onChange: (uid: string) => void;
  readonly clock?: ProbeClock;
  /** Unhealthy and ProbeWarning events (src/events); none: not recorded. */
  readonly events?: EventRecorder;
}

export interface Prober extends Component, ProbeResultsView {
  /** The pods the sources want and what the runtime holds (a relist): starts and stops workers to match. Idempotent. */
  observe(pods: readonly Pod[], snapshot: ReadonlyMap<string, ObservedPod>): void;
  readonly counters: ProbeCounters;
  readonly timing: ProbeTiming;
  /** Workers running now (tests, bench). */
  workers(): number;
}

const KINDS: readonly ProbeKind[] = ['liveness', 'readiness', 'startup'];
const NS_PER_MS = 1_000_000n;

interface Running {
  readonly worker: ProbeWorker;
  readonly specJson: string;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** The containers that are probed: app containers and sidecars (init containers that restart). */
function probedContainers(pod: Pod): Container[] {
  return [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
}

function probeOf(c: Container, kind: ProbeKind): Container['livenessProbe'] {
  return kind === 'liveness' ? c.livenessProbe : kind === 'readiness' ? c.readinessProbe : c.startupProbe;
}

/** Whether an exited container will be started again (its own restartPolicy for a sidecar, else the pod's). */
function restarts(pod: Pod, c: Container, exitCode: number): boolean {
  const policy = c.restartPolicy ?? pod.spec.restartPolicy;
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

export function createProber(opts: ProberOptions): Prober {
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const log = opts.log;
  const counters = new ProbeCounters();
  const timing = new ProbeTiming();
  const results = new Map<string, Partial<Record<ProbeKind, ProbeOutcome>>>();
  const running = new Map<string, Running>();
  const userAgent = userAgentFor('probe');
  let pods = new Map<string, Pod>();
  let snapshot: ReadonlyMap<string, ObservedPod> = new Map();
  let signal: AbortSignal | undefined;
  let startedAt = 0;

  const keyOf = (uid: string, name: string, kind: ProbeKind): string => `${uid}\u0000${name}\u0000${kind}`;
  const get = (kind: ProbeKind, containerId: string): ProbeOutcome | undefined => results.get(containerId)?.[kind];

  function apply(kind: ProbeKind, uid: string, name: string, effects: readonly ResultEffect[]): void {
    for (const e of effects) {
      const entry = results.get(e.containerId);
      if (e.op === 'remove') {
        if (entry) delete entry[kind];
        if (entry && Object.keys(entry).length === 0) results.delete(e.containerId);
        continue;
      }
      const before = entry?.[kind];
      if (e.outcome === undefined) {
        if (entry) delete entry[kind];
      } else if (entry) entry[kind] = e.outcome;
      else results.set(e.containerId, { [kind]: e.outcome });
      // A new instance's initial verdict is what a sync assumes anyway: nothing to act on.
      if (before === e.outcome || (before === undefined && e.outcome === INITIAL_OUTCOME[kind])) continue;
      const w = running.get(keyOf(uid, name, kind))?.worker;
      if (w) log.info('Probe result changed', { probeType: kind, pod: `${w.labels.namespace}/${w.labels.pod}`, podUID: uid, container: name, containerID: e.containerId, result: e.outcome ?? 'unknown' });
      // The startup probe passed: liveness and readiness may run now, without waiting for their next tick.
      if (kind === 'startup' && e.outcome === 'success') for (const k of ['liveness', 'readiness'] as const) running.get(keyOf(uid, name, k))?.worker.trigger();
      opts.onChange(uid);
    }
  }

  function observeContainer(uid: string, name: string): ReturnType<WorkerHost['observe']> {
    const pod = pods.get(uid);
    const observed = snapshot.get(uid);
    const spec = pod && probedContainers(pod).find((c) => c.name === name);
    const ports = spec?.ports ?? [];
    const latest = observed?.containers.find((c) => c.name === name);
    const nowMs = clock.wall();
    if (!pod || !spec || !observed || !latest) return { obs: { container: undefined, nowMs, started: false }, podIP: '', ports };
    const container: ContainerView = {
      id: latest.id,
      running: latest.state === 'RUNNING',
      exited: latest.state === 'EXITED',
      startedAtMs: Number(latest.startedAt / NS_PER_MS),
      final: latest.state === 'EXITED' && !restarts(pod, spec, latest.exitCode),
    };
    const started = spec.startupProbe === undefined || get('startup', latest.id) === 'success';
    const sandbox = observed.sandboxes.find((s) => s.id === latest.sandboxId) ?? observed.sandboxes[0];
    const podIP = pod.spec.hostNetwork || !sandbox || sandbox.hostNetwork || sandbox.ip === '' ? opts.hostIP : sandbox.ip;
    return { obs: { container, nowMs, started }, podIP, ports };
  }

  function start(key: string, pod: Pod, c: Container, kind: ProbeKind, specJson: string): void {
    const uid = pod.metadata.uid;
    const labels = { kind, container: c.name, pod: pod.metadata.name, namespace: pod.metadata.namespace, podUID: uid };
    const host: WorkerHost = {
      observe: () => observeContainer(uid, c.name),
      apply: (effects) => apply(kind, uid, c.name, effects),
      run: (probe, target) => runAction(probe, target, { runtime: opts.runtime, userAgent }),
      youngerThan: (ms) => clock.now() - startedAt < ms,
      counters,
      timing,
      clock,
      log,
      ...(opts.events ? { events: opts.events } : {}),
    };
    const worker = new ProbeWorker(labels, probeOf(c, kind)!, host);
    const controller = new AbortController();
    const done = worker.run(controller.signal).finally(() => {
      // Ended on its own (the container will not run again): forget it unless replaced meanwhile.
      if (running.get(key)?.worker === worker) stop(key);
    });
    running.set(key, { worker, specJson, controller, done });
    log.v(3)?.info('Probe worker started', { probeType: kind, pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: uid, container: c.name });
  }

  /** Stops a worker and drops its result and counters at once (a replacement may start right after). */
  function stop(key: string): void {
    const r = running.get(key);
    if (!r) return;
    running.delete(key);
    r.controller.abort();
    const id = r.worker.state.containerId;
    if (id !== '') apply(r.worker.labels.kind, r.worker.labels.podUID, r.worker.labels.container, [{ op: 'remove', containerId: id }]);
    counters.delete(r.worker.labels);
  }

  /** What a worker depends on, as text: a change replaces the worker. Cached per spec object (observe() runs every relist). */
  const specJsons = new WeakMap<Container, Partial<Record<ProbeKind, string>>>();
  function specJsonOf(c: Container, kind: ProbeKind): string {
    let m = specJsons.get(c);
    if (!m) specJsons.set(c, (m = {}));
    return (m[kind] ??= JSON.stringify([probeOf(c, kind), c.ports ?? [], c.startupProbe !== undefined]));
  }

  function reconcile(): void {
    const wanted = new Map<string, { pod: Pod; c: Container; kind: ProbeKind; specJson: string }>();
    for (const pod of pods.values()) {
      for (const c of probedContainers(pod)) {
        for (const kind of KINDS) {
          const probe = probeOf(c, kind);
          if (probe) wanted.set(keyOf(pod.metadata.uid, c.name, kind), { pod, c, kind, specJson: specJsonOf(c, kind) });
        }
      }
    }
    for (const [key, r] of running) if (wanted.get(key)?.specJson !== r.specJson) stop(key);
    if (!signal || signal.aborted) return;
    for (const [key, w] of wanted) if (!running.has(key)) start(key, w.pod, w.c, w.kind, w.specJson);
  }

  const component = defineComponent('prober', async (s, markReady) => {
    signal = s;
    startedAt = clock.now();
    reconcile();
    markReady();
    try {
      await waitForAbort(s);
    } finally {
      const all = [...running.values()].map((r) => r.done);
      for (const key of [...running.keys()]) stop(key);
      await Promise.all(all);
      // How late probes started against their schedule over this run (bench/ reads it from here).
      const t = timing.snapshot();
      if (t.probes > 0) log.info('Prober stopped', { probes: t.probes, latenessP50Ms: Math.round(t.p50), latenessP99Ms: Math.round(t.p99), latenessMaxMs: Math.round(t.max) });
    }
  });

  return Object.assign(component, {
    get,
    observe(next: readonly Pod[], snap: ReadonlyMap<string, ObservedPod>): void {
      pods = new Map(next.map((p) => [p.metadata.uid, p]));
      snapshot = snap;
      reconcile();
    },
    counters,
    timing,
    workers: () => running.size,
  });
}
