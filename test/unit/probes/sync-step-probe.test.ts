// The sync loop's step with the prober's input: a `probe` event asks for a
// sync of that pod (at once when idle, after the sync in flight otherwise);
// for a pod no source wants, nothing.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/pod-model/pod-types.js';
import { handle, initialState, type SyncEvent } from '../../../src/pods/sync-step.js';

const pod = (name: string): Pod => ({ metadata: { name, namespace: 'default', uid: name }, spec: { terminationGracePeriodSeconds: 30, containers: [] } }) as unknown as Pod;
const add = (name: string): SyncEvent => ({ kind: 'source', updates: [{ op: 'ADD', pod: pod(name), source: 'file' }], allSourcesSeen: true, finished: new Set() });
const synced: SyncEvent = { kind: 'done', uid: 'a', outcome: { kind: 'synced', report: { changed: false, waiting: new Map() } } };
const syncs = (events: SyncEvent[]): string[][] => {
  const s = initialState({ maxPods: 10, errorBackoffMs: 10_000 });
  return events.map((e) => handle(s, e).filter((c) => c.kind === 'sync').map((c) => (c as { uid: string }).uid));
};

describe('probe event', () => {
  it.each<[string, SyncEvent[], string[][]]>([
    ['an idle pod is synced at once', [{ kind: 'start' }, add('a'), synced, { kind: 'probe', uid: 'a' }], [[], ['a'], [], ['a']]],
    ['during a sync: the next sync follows it', [{ kind: 'start' }, add('a'), { kind: 'probe', uid: 'a' }, synced], [[], ['a'], [], ['a']]],
    ['a pod no source wants: nothing', [{ kind: 'start' }, { kind: 'probe', uid: 'x' }], [[], []]],
  ])('%s', (_, events, want) => {
    expect(syncs(events)).toEqual(want);
  });
});
