// The sync loop's step, fed events directly: each row is the events that set
// the scene, then one event, and the commands that event gives (as short
// strings). No runtime, no timers.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { desiredPods, handle, initialState, type Command, type LoopState, type SyncEvent, type WorkOutcome } from '../../../src/pods/sync-step.js';
import type { PodUpdate } from '../../../src/sources/merger.js';

const pod = (name: string, grace = 30): Pod => ({ metadata: { name, namespace: 'default', uid: name }, spec: { terminationGracePeriodSeconds: grace, containers: [] } }) as unknown as Pod;

const src = (op: PodUpdate['op'], name: string, opts: { seen?: boolean; finished?: string[]; grace?: number } = {}): SyncEvent => ({
  kind: 'source',
  updates: [{ op, pod: pod(name, opts.grace), source: 'file' }],
  allSourcesSeen: opts.seen ?? true,
  finished: new Set(opts.finished ?? []),
});
const relist = (changed: string[], present: string[], opts: { waited?: string[]; seen?: boolean } = {}): SyncEvent => ({
  kind: 'relist',
  changed: new Set(changed),
  present: new Map(present.map((u) => [u, {}])),
  waited: new Set(opts.waited ?? []),
  allSourcesSeen: opts.seen ?? true,
});
const done = (uid: string, outcome: WorkOutcome): SyncEvent => ({ kind: 'done', uid, outcome });
const synced = (over: { changed?: boolean; error?: boolean; waiting?: string[]; retryAfterMs?: number } = {}): WorkOutcome => ({
  kind: 'synced',
  report: {
    changed: over.changed ?? false,
    waiting: new Map((over.waiting ?? []).map((r, i) => [`c${i}`, { reason: r }])),
    ...(over.error ? { error: new Error('boom') } : {}),
    ...(over.retryAfterMs !== undefined ? { retryAfterMs: over.retryAfterMs } : {}),
  },
});
const START: SyncEvent = { kind: 'start' };

function show(c: Command): string {
  switch (c.kind) {
    case 'sync':
      return `sync ${c.uid}`;
    case 'teardown':
      return `teardown ${c.uid} ${c.why} ${c.gracePeriod ?? '-'}`;
    case 'set-status':
      return `set-status ${c.pod.metadata.uid} ${c.status.phase} ${c.status.reason ?? ''}`.trim();
    case 'retry':
      return `retry ${c.uid} ${c.delayMs}`;
    case 'settled':
      return `settled ${c.changes}`;
    case 'housekeeping':
      return 'housekeeping';
    case 'log':
      return `log ${c.msg}`;
    default:
      return `${c.kind} ${c.uid}`;
  }
}

function run(scene: SyncEvent[], event: SyncEvent, maxPods = 110): { commands: string[]; state: LoopState } {
  const state = initialState({ maxPods, errorBackoffMs: 10_000 });
  for (const e of scene) handle(state, e);
  return { commands: handle(state, event).map(show), state };
}

describe('sync loop step', () => {
  it.each<[string, SyncEvent[], SyncEvent, string[], number?]>([
    ['a pod added before the loop runs waits', [], src('ADD', 'a'), ['log Pod added', 'hurry-relist a']],
    ['the loop starting runs what waits', [src('ADD', 'a')], START, ['sync a']],
    ['a pod added while running is synced', [START], src('ADD', 'a'), ['log Pod added', 'hurry-relist a', 'sync a']],
    ['an edit while its sync runs: synced again after it, nothing cancelled', [START, src('ADD', 'a')], src('UPDATE', 'a'), ['log Pod changed', 'hurry-relist a']],
    ['an edit once its sync is done: synced at once', [START, src('ADD', 'a'), done('a', synced())], src('UPDATE', 'a'), ['log Pod changed', 'hurry-relist a', 'sync a']],
    ['removed while its sync runs: the sync is cancelled', [START, src('ADD', 'a')], src('REMOVE', 'a'), ['log Pod removed from its source; stopping it', 'hurry-relist a', 'cancel a']],
    ['the cancelled sync ends: the teardown starts with the spec\'s grace period', [START, src('ADD', 'a', { grace: 7 }), src('REMOVE', 'a', { grace: 7 })], done('a', { kind: 'cancelled' }), ['teardown a removed 7', ]],
    ['removed while idle: torn down at once', [START, src('ADD', 'a'), done('a', synced())], src('REMOVE', 'a'), ['log Pod removed from its source; stopping it', 'hurry-relist a', 'teardown a removed 30']],
    ['removed before every source reported: the teardown waits', [START, src('ADD', 'a', { seen: false }), done('a', synced())], src('REMOVE', 'a', { seen: false }), ['log Pod removed from its source; stopping it', 'hurry-relist a']],
    ['re-added while its removal waits for the cancelled sync: synced instead', [START, src('ADD', 'a'), src('REMOVE', 'a')], src('ADD', 'a'), ['log Pod added', 'hurry-relist a']],
    ['torn down: its status goes, its worker is forgotten', [START, src('ADD', 'a'), done('a', synced()), src('REMOVE', 'a')], done('a', { kind: 'torn-down' }), ['drop-status a', 'forget a', 'settled 1']],
    ['re-added during its teardown: started again once torn down', [START, src('ADD', 'a'), done('a', synced()), src('REMOVE', 'a'), src('ADD', 'a')], done('a', { kind: 'torn-down' }), ['sync a']],
    ['a sync that changed the runtime counts toward the settled report', [START, src('ADD', 'a')], done('a', synced({ changed: true })), ['settled 1']],
    ['a failed step: retried after the error back-off', [START, src('ADD', 'a')], done('a', synced({ waiting: ['ErrImagePull'] })), ['retry a 10000', 'settled 0']],
    ['a crash loop: retried at the end of its back-off', [START, src('ADD', 'a')], done('a', synced({ waiting: ['CrashLoopBackOff'], retryAfterMs: 300 })), ['retry a 350', 'settled 0']],
    ['a sync that threw: retried after the error back-off', [START, src('ADD', 'a')], done('a', { kind: 'failed' }), ['retry a 10000', 'settled 0']],
    ['a retry comes due', [START, src('ADD', 'a'), done('a', { kind: 'failed' })], { kind: 'retry', uid: 'a' }, ['sync a']],
    ['a retry for a forgotten pod does nothing', [START], { kind: 'retry', uid: 'x' }, []],
    ['a resync syncs every desired pod and does the housekeeping', [START, src('ADD', 'a'), src('ADD', 'b'), done('a', synced()), done('b', synced())], { kind: 'resync' }, ['sync a', 'sync b', 'housekeeping']],
    ['a relist change of a desired pod: synced', [START, src('ADD', 'a'), done('a', synced())], relist(['a'], ['a']), ['sync a']],
    ['a relist change of a pod whose sync waited for that relist: nothing more', [START, src('ADD', 'a')], relist(['a'], ['a'], { waited: ['a'] }), []],
    ['the first relist after every source reported: orphans are torn down', [START, src('ADD', 'a'), done('a', synced())], relist([], ['a', 'o']), ['teardown o orphan -']],
    ['before every source reported, no orphan is touched', [START, src('ADD', 'a', { seen: false }), done('a', synced())], relist(['o'], ['a', 'o'], { seen: false }), []],
    ['an orphan with nothing left in the runtime is forgotten', [START, relist([], ['o'])], done('o', { kind: 'gone' }), ['drop-status o', 'forget o', 'settled 0']],
    ['over the pod cap: rejected, its status says why', [START, src('ADD', 'a')], src('ADD', 'b'), ['log Pod rejected at admission', 'set-status b Failed OutOfpods'], 1],
    ['a finished pod does not count against the cap', [START, src('ADD', 'a'), done('a', synced())], src('ADD', 'b', { finished: ['a'] }), ['log Pod added', 'hurry-relist b', 'sync b'], 1],
    ['a rejected pod removed: its status goes, nothing is torn down', [START, src('ADD', 'a'), src('ADD', 'b')], src('REMOVE', 'b'), ['drop-status b', 'log Rejected pod removed from its source; it never ran', 'forget b'], 1],
    ['an edit of a rejected pod with room now: admitted, its rejection dropped', [START, src('ADD', 'a'), src('ADD', 'b'), done('a', synced()), src('REMOVE', 'a')], src('UPDATE', 'b'), ['drop-status b', 'log Pod changed', 'hurry-relist b', 'sync b'], 1],
    ['a rejected pod a previous agent left running is torn down as rejected, and keeps its status', [START, src('ADD', 'a'), src('ADD', 'b'), done('a', synced())], relist([], ['a', 'b']), ['teardown b rejected 30'], 1],
  ])('%s', (_, scene, event, want, maxPods) => {
    expect(run(scene, event, maxPods).commands).toEqual(want);
  });

  it('after stop nothing new starts; the ending work still reports', () => {
    const { state } = run([START, src('ADD', 'a')], { kind: 'stop' });
    expect(handle(state, src('ADD', 'b')).map(show)).toEqual(['log Pod added', 'hurry-relist b']);
    expect(handle(state, done('a', { kind: 'cancelled' })).map(show)).toEqual(['settled 0']);
    expect(handle(state, { kind: 'resync' }).map(show)).toEqual(['housekeeping']);
  });

  it('desired pods are the admitted ones; busy counts the pods with work in flight', () => {
    const { state } = run([START, src('ADD', 'a'), src('ADD', 'b')], src('ADD', 'c'), 2);
    expect(desiredPods(state).map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(state.busy).toBe(2);
    handle(state, done('a', synced()));
    expect(state.busy).toBe(1);
  });

  it('is a plain function: the same events give the same commands', () => {
    const events = [START, src('ADD', 'a'), relist(['a'], ['a']), done('a', synced({ changed: true })), src('REMOVE', 'a'), done('a', { kind: 'cancelled' }), done('a', { kind: 'torn-down' })];
    const once = () => {
      const state = initialState({ maxPods: 110, errorBackoffMs: 10_000 });
      return events.flatMap((e) => handle(state, e).map(show));
    };
    expect(once()).toEqual(once());
  });
});
