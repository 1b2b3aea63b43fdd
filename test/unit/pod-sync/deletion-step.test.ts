// The sync step's handling of a pod deleted through the API (issue 19 item
// 4): an UPDATE carrying a deletionTimestamp stops the pod as a removal does,
// with the deletion's grace period, and drops its status once it is down
// (which tells the pod status sync to finish it in the API).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { handle, initialState, type Command, type SyncEvent } from '../../../src/pods/sync-step.js';
import type { PodUpdate } from '../../../src/sources/merger.js';

const pod = (uid: string, del?: { grace: number }): Pod =>
  ({
    metadata: { name: uid, namespace: 'default', uid, labels: {}, annotations: {}, ...(del ? { deletionTimestamp: '2026-11-24T10:00:00Z', deletionGracePeriodSeconds: del.grace } : {}) },
    spec: { terminationGracePeriodSeconds: 30, containers: [] },
  }) as unknown as Pod;
const src = (op: PodUpdate['op'], p: Pod): SyncEvent => ({ kind: 'source', updates: [{ op, pod: p, source: 'api' }], allSourcesSeen: true, finished: new Set() });
const show = (c: Command): string => (c.kind === 'teardown' ? `teardown ${c.uid} ${c.why} ${c.gracePeriod ?? '-'}` : c.kind === 'log' ? `log ${c.msg}` : c.kind === 'set-status' ? `set-status ${c.status.phase}` : `${c.kind} ${'uid' in c ? c.uid : ''}`.trim());

function run(scene: SyncEvent[], event: SyncEvent): string[] {
  const state = initialState({ maxPods: 1, errorBackoffMs: 10_000 });
  handle(state, { kind: 'start' });
  for (const e of scene) handle(state, e);
  return handle(state, event).map(show);
}

describe('a pod deleted through the API', () => {
  const running: SyncEvent[] = [src('ADD', pod('a')), { kind: 'done', uid: 'a', outcome: { kind: 'synced', report: { changed: true, waiting: new Map() } } }];
  it.each<[string, SyncEvent[], SyncEvent, string[]]>([
    ['a running pod is torn down with deletionGracePeriodSeconds', running, src('UPDATE', pod('a', { grace: 5 })), ['log Pod deleted through the API; stopping it', 'hurry-relist a', 'teardown a removed 5']],
    ['grace period 0 (a forced delete) is kept, not defaulted', running, src('UPDATE', pod('a', { grace: 0 })), ['log Pod deleted through the API; stopping it', 'hurry-relist a', 'teardown a removed 0']],
    ['a pod first seen already deleting is never started', [], src('ADD', pod('a', { grace: 7 })), ['log Pod deleted through the API; stopping it', 'hurry-relist a', 'teardown a removed 7']],
    ['a second update while it stops logs nothing more', [...running, src('UPDATE', pod('a', { grace: 5 }))], src('UPDATE', pod('a', { grace: 5 })), []],
    ['its teardown done drops its status', [...running, src('UPDATE', pod('a', { grace: 5 }))], { kind: 'done', uid: 'a', outcome: { kind: 'torn-down' } }, ['drop-status a', 'forget a', 'settled']],
    ['a rejected pod deleted drops its rejection', [src('ADD', pod('x')), src('ADD', pod('a'))], src('UPDATE', pod('a', { grace: 5 })), ['drop-status a', 'log Rejected pod deleted through the API; it never ran', 'forget a']],
  ])('%s', (_name, scene, event, want) => {
    expect(run(scene, event)).toEqual(want);
  });
});
