// Stopping a container says what it does (issue 14): "Killing container with a
// grace period" when the stop begins, and when it ends whether the container
// exited within its grace period or was killed after it. Time comes from a
// ManualClock shared by the fake runtime and the sync; a blocked StopContainer
// stands for the runtime waiting out the grace period.
import { describe, expect, it } from 'vitest';
import { FakeRuntime, ManualClock } from '../../../src/cri/fake-runtime.js';
import type { AgentLogger, LogFields } from '../../../src/log/index.js';
import { stoppedWithinGrace, teardownPod } from '../../../src/pods/sync-pod.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

/** Like testLogger, but a child's bindings (pod, podUID) are kept in each record's fields. */
function boundLogger(records: LogRecord[], bound: LogFields = {}): AgentLogger {
  const log = testLogger([]);
  const at = (level: LogRecord['level']) => (msg: string, fields: LogFields = {}) => void records.push({ level, component: 'test', msg, fields: { ...bound, ...fields } });
  return Object.assign(log, { info: at('info'), warn: at('warn'), error: at('error'), v: () => undefined, child: (b: LogFields) => boundLogger(records, { ...bound, ...b }) });
}

const stopLines = (records: LogRecord[]): Array<Record<string, unknown>> => records.filter((r) => /grace period/.test(r.msg)).map((r) => ({ msg: r.msg, ...r.fields }));

describe('stoppedWithinGrace', () => {
  it.each([
    [0, 30, true],
    [29_999, 30, true],
    [30_000, 30, false],
    [30_250, 30, false],
    [1_999, 2, true],
    [2_000, 2, false],
  ])('a stop of %i ms with a grace period of %i s: within %s', (elapsedMs, grace, want) => {
    expect(stoppedWithinGrace(elapsedMs, grace)).toBe(want);
  });
});

describe('stopping a container', () => {
  it.each([
    // [what the container does, how long the runtime's stop takes, the end line]
    ['exits on SIGTERM', 0, 143, 'Container exited within its grace period'],
    ['exits after 5 s of its 30', 5_000, 143, 'Container exited within its grace period'],
    ['ignores SIGTERM (httpd as PID 1)', 30_000, 137, 'Container did not exit within its grace period; killed'],
  ])('a container that %s: the stop is logged when it begins and ends', async (_, stopMs, exitCode, end) => {
    const clock = new ManualClock();
    const runtime = new FakeRuntime({ images: [IMAGE], now: clock.now, onStart: () => ({ stopExitCode: exitCode }) });
    const records: LogRecord[] = [];
    const deps = syncDeps(runtime, { log: boundLogger(records), now: () => Number(clock.now() / 1_000_000n) });
    const pod = staticPod({ command: ['httpd', '-f'] }, 'web');
    expect((await syncOnce(runtime, pod, deps)).waiting.size).toBe(0);
    const [first] = runtime.containers();

    // The edit changes the container's hash: the sync stops the old instance first.
    const edited = { ...pod, spec: { ...pod.spec, containers: [{ ...pod.spec.containers[0]!, command: ['httpd', '-f', '-v'] }] } };
    const stop = runtime.block('stopContainer');
    const synced = syncOnce(runtime, edited, deps);
    await stop.arrived;
    expect(stopLines(records)).toEqual([{ msg: 'Killing container with a grace period', pod: 'default/web-n', podUID: pod.metadata.uid, container: 'main', containerID: first!.id, gracePeriod: 30, reason: expect.any(String), message: expect.any(String) }]);
    clock.advance(stopMs);
    stop.release();
    expect((await synced).waiting.size).toBe(0);
    expect(stopLines(records)[1]).toEqual({ msg: end, pod: 'default/web-n', podUID: pod.metadata.uid, container: 'main', containerID: first!.id, gracePeriod: 30, elapsedMs: stopMs });
    expect(runtime.containers().find((c) => c.id === first!.id)?.exitCode).toBe(exitCode);
  });

  it('a pod torn down logs each container stop with the pod it belongs to, at least the minimum grace period', async () => {
    const clock = new ManualClock();
    const runtime = new FakeRuntime({ images: [IMAGE], now: clock.now });
    const records: LogRecord[] = [];
    const deps = syncDeps(runtime, { log: boundLogger(records), now: () => Number(clock.now() / 1_000_000n) });
    const pod = staticPod({}, 'gone');
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 0, deps, ac.signal);
    expect(stopLines(records).map((l) => [l.msg, l.pod, l.container, l.gracePeriod])).toEqual([
      ['Killing container with a grace period', 'default/gone-n', 'main', 2],
      ['Container exited within its grace period', 'default/gone-n', 'main', 2],
    ]);
  });

  it('a container the runtime no longer knows (removed by another teardown) counts as stopped, not as a failed teardown', async () => {
    const runtime = new FakeRuntime({ images: [IMAGE] });
    const records: LogRecord[] = [];
    const deps = syncDeps(runtime, { log: boundLogger(records) });
    const pod = staticPod({}, 'twice');
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    const observed = await observePod(runtime, pod.metadata.uid, ac.signal);
    runtime.failNext('stopContainer', 'NOT_FOUND');
    await expect(teardownPod(observed, 0, deps, ac.signal)).resolves.not.toThrow();
    expect(records.filter((r) => r.msg === 'Container already gone').map((r) => r.fields['container'])).toEqual(['main']);
    expect(records.filter((r) => r.level === 'error')).toEqual([]);
  });
});

