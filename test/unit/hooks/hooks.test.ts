// Lifecycle hooks on the in-memory runtime: postStart runs right after the
// start (its failure kills the container with PostStartHookError), preStop
// runs before the stop call and shares the grace period with it (also for a
// pod whose spec is gone: the handler comes from the container's
// annotation), a failing or overlong preStop is reported and the stop goes on.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FakeRuntime, ManualClock, type FakeExec } from '../../../src/cri/fake-runtime.js';
import { teardownPod } from '../../../src/pods/sync-pod.js';
import { observePod } from '../../../src/runtime-view/observe.js';
import { IMAGE, staticPod, syncDeps, syncOnce } from '../../helpers/sync-pod.js';
import { testLogger, type LogRecord } from '../../helpers/test-logger.js';

function setup(onExec?: FakeExec) {
  const clock = new ManualClock();
  const runtime = new FakeRuntime({ images: [IMAGE], now: clock.now, ...(onExec ? { onExec } : {}) });
  const records: LogRecord[] = [];
  const deps = syncDeps(runtime, { log: testLogger(records), now: () => Number(clock.now() / 1_000_000n) });
  return { clock, runtime, records, deps };
}

const hookLines = (records: LogRecord[]) => records.filter((r) => r.level === 'warn' && /Hook|hook/.test(r.msg)).map((r) => ({ msg: r.msg, reason: r.fields['reason'] }));
const order = (runtime: FakeRuntime) => runtime.calls.filter((c) => ['startContainer', 'execSync', 'stopContainer'].includes(c.method)).map((c) => (c.method === 'execSync' ? `exec ${(c.args[1] as string[]).join(' ')} (timeout ${String(c.args[2])})` : c.method));

describe('postStart', () => {
  it('runs right after the start, without a timeout', async () => {
    const { runtime, deps } = setup();
    const r = await syncOnce(runtime, staticPod({ lifecycle: { postStart: { exec: { command: ['touch', '/started'] } } } }), deps);
    expect(r.waiting.size).toBe(0);
    expect(order(runtime)).toEqual(['startContainer', 'exec touch /started (timeout 0)']);
    expect(runtime.containers()[0]!.state).toBe('RUNNING');
  });

  it('a failing hook kills the container: PostStartHookError, FailedPostStartHook with its output', async () => {
    const { runtime, deps, records } = setup(() => ({ exitCode: 1, stdout: Buffer.from('no such file') }));
    const r = await syncOnce(runtime, staticPod({ lifecycle: { postStart: { exec: { command: ['false'] } } } }), deps);
    expect(r.waiting.get('main')).toEqual({ reason: 'PostStartHookError', message: expect.stringMatching(/^Exec lifecycle hook \(\["false"\]\) for Container "main" in Pod "default\/p-n\(.+\)" failed - error: no such file$/) });
    expect(order(runtime)).toEqual(['startContainer', 'exec false (timeout 0)', 'stopContainer']);
    expect(runtime.containers()[0]!.state).toBe('EXITED');
    expect(hookLines(records)).toEqual([{ msg: 'Failed to execute PostStartHook', reason: 'FailedPostStartHook' }]);
  });

  it('an httpGet hook reaches the pod (the node IP on the host network) as platform-lifecycle; only no answer fails it', async () => {
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const { runtime, deps } = setup();
      const ok = await syncOnce(runtime, staticPod({ ports: [{ name: 'http', containerPort: port }], lifecycle: { postStart: { httpGet: { port: 'http', path: '/hook' } } } }, 'web'), deps);
      expect(ok.waiting.size).toBe(0);
      expect(seen).toEqual([{ url: '/hook', headers: expect.objectContaining({ 'user-agent': expect.stringMatching(/^platform-lifecycle\//) }) }]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const { runtime, deps } = setup();
    const refused = await syncOnce(runtime, staticPod({ lifecycle: { postStart: { httpGet: { port, path: '/hook' } } } }, 'web'), deps);
    expect(refused.waiting.get('main')?.reason).toBe('PostStartHookError');
  });
});

describe('preStop', () => {
  const withPreStop = (grace = 30) => {
    const p = staticPod({ lifecycle: { preStop: { exec: { command: ['sh', '-c', 'drain'] } } } }, 'svc');
    return { ...p, spec: { ...p.spec, terminationGracePeriodSeconds: grace } };
  };

  it('runs before the stop call, with the grace period as its budget; a quick hook leaves the stop the whole grace period', async () => {
    const { runtime, deps } = setup();
    const pod = withPreStop();
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 30, deps, ac.signal);
    expect(order(runtime)).toEqual(['startContainer', 'exec sh -c drain (timeout 30)', 'stopContainer']);
    expect(runtime.callsOf('stopContainer')[0]![1]).toBe(30);
  });

  it('the handler is read from the container, so a pod whose spec is gone still gets it (named ports resolved)', async () => {
    const { runtime, deps } = setup();
    const pod = staticPod({ ports: [{ name: 'admin', containerPort: 9000 }], lifecycle: { preStop: { httpGet: { port: 'admin', path: '/quit' } } } }, 'svc');
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    const observed = await observePod(runtime, pod.metadata.uid, ac.signal);
    expect(observed.containers[0]!.preStop).toEqual({ httpGet: { port: 9000, path: '/quit' } });
  });

  it.each([
    ['a hook that took 25 s of 30 leaves the stop 5 s', 25_000, 5, []],
    ['a hook that used the whole grace period leaves the stop the 2 s minimum', 31_000, 2, [{ msg: 'PreStop hook not completed in grace period', reason: 'FailedPreStopHook' }]],
  ])('%s', async (_, hookMs, stopSeconds, lines) => {
    let clock: ManualClock | undefined;
    const s = setup(() => {
      clock!.advance(hookMs);
      return {};
    });
    clock = s.clock;
    const pod = withPreStop(30);
    await syncOnce(s.runtime, pod, s.deps);
    const ac = new AbortController();
    await teardownPod(await observePod(s.runtime, pod.metadata.uid, ac.signal), 30, s.deps, ac.signal);
    expect(s.runtime.callsOf('stopContainer')[0]![1]).toBe(stopSeconds);
    expect(hookLines(s.records)).toEqual(lines);
  });

  it('a failing hook is reported (FailedPreStopHook) and the stop goes on', async () => {
    const { runtime, deps, records } = setup(() => ({ exitCode: 3 }));
    const pod = withPreStop();
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 30, deps, ac.signal);
    expect(hookLines(records)).toEqual([{ msg: 'PreStop hook failed', reason: 'FailedPreStopHook' }]);
    expect(runtime.callsOf('stopContainer')).toHaveLength(1);
    expect(runtime.containers()).toEqual([]);
  });

  it('a container without a preStop hook is stopped without an exec', async () => {
    const { runtime, deps } = setup();
    const pod = staticPod({}, 'plain');
    await syncOnce(runtime, pod, deps);
    const ac = new AbortController();
    await teardownPod(await observePod(runtime, pod.metadata.uid, ac.signal), 30, deps, ac.signal);
    expect(runtime.callsOf('execSync')).toEqual([]);
  });
});
