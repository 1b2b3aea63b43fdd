// One probe worker: one probe kind of one container of one pod (the
// kubelet's prober/worker.go run loop). Ticks every periodSeconds on a
// monotonic schedule (a late tick is not made up for: the next one stays on
// the schedule, as Go's ticker), and probes when beforeProbe says so. Owned
// by the prober manager (manager.ts), which starts it with a signal and
// aborts that signal when its container or pod goes; nothing runs after.
import type { AgentLogger } from '../log/index.js';
import { containerRef, probeEvent, type EventRecorder } from '../events/index.js';
import type { Probe } from '../pod-model/pod-types.js';
import type { ActionTarget } from './action.js';
import type { HttpResult } from './http.js';
import type { ProbeCounters, ProbeTiming, WorkerLabels } from './metrics.js';
import { afterProbe, beforeProbe, effectiveProbe, newWorkerState, type EffectiveProbe, type Observation, type ResultEffect, type WorkerState } from './worker-state.js';

/** Time as the prober sees it; injectable for tests (fake timers). */
export interface ProbeClock {
  /** Monotonic ms: the schedule. */
  now(): number;
  /** Wall-clock ms: compared with a container's start time. */
  wall(): number;
  /** [0, 1): the start-up jitter. */
  random(): number;
}

export const SYSTEM_CLOCK: ProbeClock = { now: () => performance.now(), wall: () => Date.now(), random: Math.random };

/** What a worker reads and writes through its manager. */
export interface WorkerHost {
  /** The container now (from the last relist) and where to reach it. */
  observe(): { obs: Observation; podIP: string; ports: NonNullable<import('../pod-model/pod-types.js').Container['ports']> };
  /** Publishes result changes of this worker's kind. */
  apply(effects: readonly ResultEffect[]): void;
  run(probe: Probe, target: ActionTarget): Promise<HttpResult>;
  /** Whether the manager started less than `ms` ago (then the first probe waits a random part of the period). */
  youngerThan(ms: number): boolean;
  readonly counters: ProbeCounters;
  readonly timing: ProbeTiming;
  readonly clock: ProbeClock;
  readonly log: AgentLogger;
  /** Unhealthy and ProbeWarning events (src/events); none: not recorded. */
  readonly events?: EventRecorder;
}

export class ProbeWorker {
  readonly spec: EffectiveProbe;
  readonly state: WorkerState = newWorkerState();
  private wake: (() => void) | undefined;
  private triggered = false;

  constructor(
    readonly labels: WorkerLabels,
    readonly probe: Probe,
    private readonly host: WorkerHost,
  ) {
    this.spec = effectiveProbe(probe);
  }

  /** Probes at once instead of at the next tick (the startup probe just passed). Never blocks. */
  trigger(): void {
    this.triggered = true;
    this.wake?.();
  }

  /** Runs until `signal` aborts or the container will not run again. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.host;
    const period = this.spec.periodSeconds * 1000;
    let next = clock.now();
    // After an agent restart every worker would start at once: spread them over a period.
    if (this.host.youngerThan(period)) next += clock.random() * period;
    try {
      for (;;) {
        const byTimer = await this.sleepUntil(next, signal);
        if (signal.aborted) return;
        if (byTimer) {
          this.host.timing.record(Math.max(0, clock.now() - next));
          next += period;
          // Missed ticks are dropped, not run back to back.
          while (next <= clock.now()) next += period;
        }
        if (!(await this.doProbe(signal))) return;
      }
    } catch (e) {
      if (!signal.aborted) this.host.log.error('Probe worker failed', { ...this.fields(), err: e });
    }
  }

  /** Resolves true at `at`, false when triggered or aborted first. */
  private sleepUntil(at: number, signal: AbortSignal): Promise<boolean> {
    if (this.triggered) {
      this.triggered = false;
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const done = (byTimer: boolean): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
        this.triggered = false;
        resolve(byTimer);
      };
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(true), Math.max(0, at - this.host.clock.now()));
      this.wake = () => done(false);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) done(false);
    });
  }

  private fields(): Record<string, unknown> {
    const l = this.labels;
    return { probeType: l.kind, pod: `${l.namespace}/${l.pod}`, podUID: l.podUID, container: l.container };
  }

  private event(verdict: 'failed' | 'warning' | 'errored', output: string): void {
    const l = this.labels;
    const e = probeEvent(l.kind, verdict, output);
    this.host.events?.event(containerRef({ namespace: l.namespace, name: l.pod, uid: l.podUID }, l.container), e.type, e.reason, e.message);
  }

  /** One tick (the kubelet's doProbe): false when the worker should end. */
  private async doProbe(signal: AbortSignal): Promise<boolean> {
    const { obs, podIP, ports } = this.host.observe();
    const before = beforeProbe(this.state, this.labels.kind, this.spec, obs);
    this.host.apply(before.effects);
    if (before.next !== 'probe') return before.next === 'skip';
    const containerId = this.state.containerId;
    let r: HttpResult;
    try {
      r = await this.host.run(this.probe, { containerId, podIP, ports, timeoutMs: this.spec.timeoutSeconds * 1000, signal });
    } catch (e) {
      if (signal.aborted) return false;
      // A prober error (the runtime could not exec, a port name not found): no verdict, as the kubelet throws the result away.
      this.host.log.v(1)?.info('Probe errored', { ...this.fields(), containerID: containerId, err: e });
      this.event('errored', (e as Error).message);
      return true;
    }
    if (signal.aborted || this.state.containerId !== containerId) return !signal.aborted;
    this.host.counters.inc(this.labels, r.result === 'failure' ? 'failed' : 'successful');
    if (r.result !== 'success') this.event(r.result === 'failure' ? 'failed' : 'warning', r.output);
    if (r.result === 'failure') this.host.log.info('Probe failed', { ...this.fields(), containerID: containerId, reason: 'Unhealthy', output: r.output });
    else if (r.result === 'warning') this.host.log.warn('Probe warning', { ...this.fields(), containerID: containerId, reason: 'ProbeWarning', output: r.output, ...(r.offHostRedirect ? { location: r.offHostRedirect } : {}) });
    this.host.apply(afterProbe(this.state, this.labels.kind, this.spec, r.result === 'failure' ? 'failure' : 'success'));
    return true;
  }
}
