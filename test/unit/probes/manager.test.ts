// The prober manager on fake timers with a stub runtime: workers start and
// stop with their pods, the first probe's start-up jitter stays within a
// period, a liveness failure publishes a verdict and calls onChange (the
// re-sync) and holds until a new instance, the startup probe gates liveness
// and triggers it at once when it passes, and nothing runs after the stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodePod } from '../../../src/pod-model/pod-decode.js';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { createProber, type Prober } from '../../../src/probes/manager.js';
import type { ObservedPod } from '../../../src/runtime-view/observed.js';
import { testLogger } from '../../helpers/test-logger.js';

function podWith(container: Record<string, unknown>, restartPolicy = 'Always'): Pod {
  const d = decodePod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'uid-1' }, spec: { hostNetwork: true, restartPolicy, containers: [{ name: 'main', image: 'busybox', ...container }] } });
  if (!d.ok) throw new Error(JSON.stringify(d.problems));
  return d.pod;
}

function observed(id: string, state: 'RUNNING' | 'EXITED' = 'RUNNING', startedAtMs = Date.now()): Map<string, ObservedPod> {
  const c = { id, name: 'main', sandboxId: 's1', type: 'container' as const, state, hash: '', restartCount: 0, createdAt: 1n, startedAt: BigInt(startedAtMs) * 1_000_000n, finishedAt: 0n, exitCode: 0, reason: '', message: '', image: '', imageRef: '' };
  return new Map([['uid-1', { uid: 'uid-1', name: 'p', namespace: 'default', sandboxes: [{ id: 's1', ready: true, attempt: 0, createdAt: 1n, ip: '', additionalIps: [], hostNetwork: true, configHash: '' }], containers: [c] }]]);
}

interface Harness {
  prober: Prober;
  execs: Array<{ at: number; id: string; cmd: string }>;
  changes: string[];
  answer: Map<string, number>;
  stop(): Promise<void>;
}

function harness(random = 0): Harness {
  const execs: Harness['execs'] = [];
  const changes: string[] = [];
  const answer = new Map<string, number>();
  const prober = createProber({
    runtime: {
      execSync: async (id, cmd) => {
        execs.push({ at: Date.now(), id, cmd: cmd.join(' ') });
        return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: answer.get(cmd.join(' ')) ?? 0 };
      },
    },
    hostIP: '127.0.0.1',
    log: testLogger(),
    onChange: (uid) => changes.push(uid),
    clock: { now: () => Date.now(), wall: () => Date.now(), random: () => random },
  });
  const ac = new AbortController();
  const done = prober.run(ac.signal);
  return {
    prober,
    execs,
    changes,
    answer,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

const exec = (cmd: string, extra: Record<string, unknown> = {}) => ({ exec: { command: ['sh', '-c', cmd] }, ...extra });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('prober manager', () => {
  it.each([0, 0.5, 0.999])('a young manager delays the first probe by random × period (random %f), within one period', async (random) => {
    const h = harness(random);
    const t0 = Date.now();
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 10 }) })], observed('c1'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.execs.length).toBeGreaterThanOrEqual(1);
    const first = h.execs[0]!.at - t0;
    expect(first).toBeGreaterThanOrEqual(Math.floor(random * 10_000));
    expect(first).toBeLessThan(10_000);
    await h.stop();
  });

  it('probes every period afterwards and counts the results', async () => {
    const h = harness(0);
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 2 }) })], observed('c1'));
    await vi.advanceTimersByTimeAsync(6_100);
    expect(h.execs.map((e) => e.at - h.execs[0]!.at)).toEqual([0, 2_000, 4_000, 6_000]);
    expect(h.prober.get('readiness', 'c1')).toBe('success');
    expect(h.prober.counters.snapshot()).toEqual([{ probeType: 'Readiness', result: 'successful', container: 'main', pod: 'p', namespace: 'default', podUID: 'uid-1', count: 4 }]);
    expect(h.prober.timing.snapshot().probes).toBe(4);
    await h.stop();
  });

  it('a liveness failure (3 in a row) becomes the verdict, asks for a re-sync, and holds until a new instance', async () => {
    const h = harness(0);
    const pod = podWith({ livenessProbe: exec('alive', { periodSeconds: 1 }) });
    h.answer.set('sh -c alive', 1);
    h.prober.observe([pod], observed('c1'));
    await vi.advanceTimersByTimeAsync(10);
    expect(h.prober.get('liveness', 'c1')).toBe('success');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.prober.get('liveness', 'c1')).toBe('failure');
    expect(h.changes).toEqual(['uid-1']);
    const probed = h.execs.length;
    expect(probed).toBe(3);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.execs.length).toBe(probed);
    // The restarted container: a new instance, probed again; the old verdict is gone.
    h.answer.set('sh -c alive', 0);
    h.prober.observe([pod], observed('c2'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.execs.at(-1)!.id).toBe('c2');
    expect(h.prober.get('liveness', 'c2')).toBe('success');
    expect(h.prober.get('liveness', 'c1')).toBeUndefined();
    await h.stop();
  });

  it('a startup probe holds liveness and readiness back, and its success triggers them at once', async () => {
    const h = harness(0);
    h.answer.set('sh -c started', 1);
    const pod = podWith({ startupProbe: exec('started', { periodSeconds: 5, failureThreshold: 30 }), livenessProbe: exec('alive', { periodSeconds: 60 }), readinessProbe: exec('ready', { periodSeconds: 60 }) });
    h.prober.observe([pod], observed('c1'));
    await vi.advanceTimersByTimeAsync(12_000);
    expect(new Set(h.execs.map((e) => e.cmd))).toEqual(new Set(['sh -c started']));
    expect(h.prober.get('startup', 'c1')).toBeUndefined();
    expect(h.prober.get('readiness', 'c1')).toBe('failure');
    h.answer.set('sh -c started', 0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.prober.get('startup', 'c1')).toBe('success');
    // Not 60 s later: right after the startup probe passed.
    await vi.advanceTimersByTimeAsync(10);
    expect(h.execs.map((e) => e.cmd)).toEqual(expect.arrayContaining(['sh -c alive', 'sh -c ready']));
    expect(h.prober.get('readiness', 'c1')).toBe('success');
    await h.stop();
  });

  it('initialDelaySeconds counts from the container start', async () => {
    const h = harness(0);
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 1, initialDelaySeconds: 5 }) })], observed('c1', 'RUNNING', Date.now()));
    await vi.advanceTimersByTimeAsync(4_500);
    expect(h.execs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.execs).toHaveLength(1);
    await h.stop();
  });

  it('a pod no longer wanted loses its workers, verdicts and counters; nothing runs after the stop', async () => {
    const h = harness(0);
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 1 }) })], observed('c1'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(h.prober.workers()).toBe(1);
    expect(h.prober.get('readiness', 'c1')).toBe('success');
    h.prober.observe([], new Map());
    expect(h.prober.workers()).toBe(0);
    expect(h.prober.get('readiness', 'c1')).toBeUndefined();
    expect(h.prober.counters.snapshot()).toEqual([]);
    const n = h.execs.length;
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 1 }) })], observed('c1'));
    await h.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.execs.length).toBeLessThanOrEqual(n + 1);
    expect(h.prober.workers()).toBe(0);
  });

  it('an edited probe (same pod UID) replaces its worker; an unchanged one is kept', async () => {
    const h = harness(0);
    const v1 = podWith({ readinessProbe: exec('old', { periodSeconds: 1 }) });
    h.prober.observe([v1], observed('c1'));
    await vi.advanceTimersByTimeAsync(1_500);
    h.prober.observe([podWith({ readinessProbe: exec('old', { periodSeconds: 1 }) })], observed('c1'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(new Set(h.execs.map((e) => e.cmd))).toEqual(new Set(['sh -c old']));
    h.prober.observe([podWith({ readinessProbe: exec('new', { periodSeconds: 1 }) })], observed('c1'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(h.execs.at(-1)!.cmd).toBe('sh -c new');
    expect(h.prober.workers()).toBe(1);
    await h.stop();
  });

  it('a container exited for good (restartPolicy Never) ends its worker', async () => {
    const h = harness(0);
    h.prober.observe([podWith({ readinessProbe: exec('ready', { periodSeconds: 1 }) }, 'Never')], observed('c1', 'EXITED'));
    await vi.advanceTimersByTimeAsync(100);
    expect(h.prober.workers()).toBe(0);
    await h.stop();
  });
});
