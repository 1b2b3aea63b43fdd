// The status sync's decisions as tables: where a status goes, what is merged
// with the server's status, the final status of a pod deleted through the
// API, and whether to patch, finish or forget an API pod.
import { describe, expect, it } from 'vitest';
import type { ContainerStatus, Pod, PodStatus } from '../../../src/pod-model/pod-types.js';
import { apiPodAction, finalStatus, mergedStatus, statusTarget } from '../../../src/pod-sync/status-decide.js';

const pod = (annotations: Record<string, string>): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', uid: 'u', labels: {}, annotations }, spec: { containers: [] } }) as unknown as Pod;
const cs = (name: string, state: ContainerStatus['state']): ContainerStatus => ({ name, state, lastState: {}, ready: state.running !== undefined, restartCount: 0, image: 'i', imageID: '', started: state.running !== undefined });
const cond = (type: string, status: 'True' | 'False') => ({ type, status, lastTransitionTime: '2026-11-24T10:00:00Z' });

describe('statusTarget', () => {
  it.each<[string, Record<string, string>, unknown]>([
    ['an API pod writes its own status', { 'platform.io/config.source': 'api' }, { kind: 'api' }],
    ['a file pod writes to its mirror by hash', { 'platform.io/config.source': 'file', 'platform.io/config.hash': 'h1' }, { kind: 'mirror', hash: 'h1' }],
    ['a URL pod too', { 'platform.io/config.source': 'http', 'platform.io/config.hash': 'h2' }, { kind: 'mirror', hash: 'h2' }],
    ['a static pod without a hash has nowhere to go', { 'platform.io/config.source': 'file' }, undefined],
    ['no source: nothing', {}, undefined],
  ])('%s', (_n, annotations, want) => {
    expect(statusTarget(pod(annotations))).toEqual(want);
  });
});

describe('mergedStatus', () => {
  it("keeps the server's conditions of types the agent does not own, replaces the agent's", () => {
    const server = { phase: 'Pending', conditions: [cond('PodScheduled', 'True'), cond('Ready', 'False'), cond('DisruptionTarget', 'True')] };
    const ours = { phase: 'Running', conditions: [cond('Ready', 'True'), cond('Initialized', 'True')] };
    expect(mergedStatus(ours, server)).toEqual({ phase: 'Running', conditions: [cond('Ready', 'True'), cond('Initialized', 'True'), cond('PodScheduled', 'True'), cond('DisruptionTarget', 'True')] });
  });
});

describe('finalStatus', () => {
  const running: PodStatus = { phase: 'Running', conditions: [cond('Ready', 'True'), cond('ContainersReady', 'True'), cond('Initialized', 'True')], containerStatuses: [cs('a', { running: { startedAt: 't' } }), cs('b', { terminated: { exitCode: 0, reason: 'Completed' } })] } as PodStatus;
  it('a running pod ends Failed, its running container with ContainerStatusUnknown 137, not ready', () => {
    const s = finalStatus(running, {});
    expect(s['phase']).toBe('Failed');
    expect(s['containerStatuses']).toMatchObject([
      { name: 'a', ready: false, state: { terminated: { reason: 'ContainerStatusUnknown', exitCode: 137, message: 'The container could not be located when the pod was terminated' } } },
      { name: 'b', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    ]);
    expect(s['conditions']).toMatchObject([{ type: 'Ready', status: 'False', reason: 'PodFailed' }, { type: 'ContainersReady', status: 'False', reason: 'PodFailed' }, { type: 'Initialized', status: 'True' }]);
  });
  it.each<[string, PodStatus | undefined, Record<string, unknown>, string]>([
    ['Succeeded stays Succeeded', { ...running, phase: 'Succeeded' }, {}, 'Succeeded'],
    ['Pending becomes Failed', { ...running, phase: 'Pending' }, {}, 'Failed'],
    ['never ran: Failed from the server status', undefined, { phase: 'Pending' }, 'Failed'],
    ['never ran but the server says Succeeded', undefined, { phase: 'Succeeded' }, 'Succeeded'],
  ])('%s', (_n, last, server, phase) => {
    expect(finalStatus(last, server)['phase']).toBe(phase);
  });
});

describe('apiPodAction', () => {
  const obj = (uid: string, deleting: boolean) => ({ metadata: { uid, ...(deleting ? { deletionTimestamp: 't' } : {}) } });
  it.each<[string, Record<string, unknown> | undefined, boolean, string]>([
    ['gone from the API: forget', undefined, false, 'forget'],
    ['re-created under another uid: forget', obj('other', false), false, 'forget'],
    ['a status to write: patch', obj('u', false), false, 'patch'],
    ['deleting but still running here: patch', obj('u', true), false, 'patch'],
    ['deleting and torn down: finish', obj('u', true), true, 'finish'],
    ['status dropped without a deletion: forget', obj('u', false), true, 'forget'],
  ])('%s', (_n, current, dropped, want) => {
    expect(apiPodAction(current, 'u', dropped)).toBe(want);
  });
});
