import { describe, expect, it } from 'vitest';
import { PATCH_STRATEGIC } from '../../../../src/api/media.js';
import { NodeWriterError, nodeStatusGetOptions, syncPodStatus, updateNodeStatus } from '../../../../src/client/node/index.js';
import type { ApiObject } from '../../../../src/client/types.js';
import { FakeResourceClient, NODES, PODS, internal, notFound, recordingLog } from './fake-resource-client.js';

const serverNode = (hb: string): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', uid: 'u-1', resourceVersion: '5' },
  status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: hb }] },
});
const heartbeat = (hb: string) => (current: ApiObject): ApiObject => ({ ...current, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: hb }] } });

describe('nodeStatusGetOptions', () => {
  it.each([
    [0, { resourceVersion: '0' }],
    [1, {}],
    [4, {}],
  ])('try %i reads %j', (attempt, want) => {
    expect(nodeStatusGetOptions(attempt)).toEqual(want);
  });
});

describe('updateNodeStatus', () => {
  it('GETs from the cache, then PATCHes nodes/<name>/status with a strategic merge patch carrying the uid', async () => {
    const nodes = new FakeResourceClient(NODES, '').answer('get', { ok: serverNode('t0') }).answer('patch', { ok: serverNode('t1') });
    const res = await updateNodeStatus(nodes, 'n1', heartbeat('t1'), { log: recordingLog() });
    expect(res.outcome).toBe('patched');
    expect(nodes.verbs()).toEqual(['get n1', 'patch n1']);
    expect(nodes.calls[0]!.opts).toEqual({ resourceVersion: '0' });
    const patch = nodes.calls[1]!;
    expect(patch.patchType).toBe(PATCH_STRATEGIC);
    expect(patch.opts).toEqual({ subresource: 'status' });
    expect(patch.patch).toEqual({
      metadata: { uid: 'u-1' },
      status: { '$setElementOrder/conditions': [{ type: 'Ready' }], conditions: [{ lastHeartbeatTime: 't1', type: 'Ready' }] },
    });
  });

  it('sends nothing when the desired node equals the server\'s, or when there is nothing to report', async () => {
    const nodes = new FakeResourceClient(NODES, '').answer('get', { ok: serverNode('t0') }, { ok: serverNode('t0') });
    expect((await updateNodeStatus(nodes, 'n1', heartbeat('t0'), { log: recordingLog() })).outcome).toBe('unchanged');
    expect((await updateNodeStatus(nodes, 'n1', () => undefined, { log: recordingLog() })).outcome).toBe('unchanged');
    expect(nodes.verbs()).toEqual(['get n1', 'get n1']);
  });

  it('tries again at once, later reads consistent, after a failed GET or PATCH', async () => {
    const nodes = new FakeResourceClient(NODES, '')
      .answer('get', { err: internal() }, { ok: serverNode('t0') }, { ok: serverNode('t0') })
      .answer('patch', { err: internal() }, { ok: serverNode('t1') });
    let repeated = 0;
    const res = await updateNodeStatus(nodes, 'n1', heartbeat('t1'), { log: recordingLog(), onRepeatedFailure: () => void repeated++ });
    expect(res.outcome).toBe('patched');
    expect(nodes.verbs()).toEqual(['get n1', 'get n1', 'patch n1', 'get n1', 'patch n1']);
    expect(nodes.calls.filter((c) => c.verb === 'get').map((c) => c.opts)).toEqual([{ resourceVersion: '0' }, {}, {}]);
    expect(repeated).toBe(1);
  });

  it('gives up after 5 tries with a NodeWriterError naming the node, the last failure as cause', async () => {
    const last = internal();
    const nodes = new FakeResourceClient(NODES, '').answer('get', { err: internal() }, { err: internal() }, { err: internal() }, { err: internal() }, { err: last });
    const log = recordingLog();
    let repeated = 0;
    const err = await updateNodeStatus(nodes, 'n1', heartbeat('t1'), { log, onRepeatedFailure: () => void repeated++ }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeWriterError);
    expect((err as NodeWriterError).object).toBe('nodes/n1');
    expect((err as NodeWriterError).attempts).toBe(5);
    expect((err as NodeWriterError).cause).toBe(last);
    expect(nodes.calls).toHaveLength(5);
    expect(repeated).toBe(4);
    expect(log.lines.filter((l) => l.startsWith('error'))).toHaveLength(5);
  });

  it('stops at an abort with the signal\'s reason, without further tries', async () => {
    const ac = new AbortController();
    const reason = new Error('stop');
    const nodes = new FakeResourceClient(NODES, '').answer('get', { ok: serverNode('t0') });
    const err = await updateNodeStatus(
      nodes,
      'n1',
      (c) => {
        ac.abort(reason);
        return heartbeat('t1')(c);
      },
      { log: recordingLog(), signal: ac.signal },
    ).catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(nodes.verbs()).toEqual(['get n1', 'patch n1']);
  });
});

describe('syncPodStatus', () => {
  const serverPod = (uid: string): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid }, status: { phase: 'Pending' } });
  const running = (): ApiObject => ({ phase: 'Running' });

  it('GETs the pod and PATCHes pods/<name>/status from the server\'s status, uid as precondition', async () => {
    const pods = new FakeResourceClient(PODS, 'ns').answer('get', { ok: serverPod('u-p') }).answer('patch', { ok: serverPod('u-p') });
    const res = await syncPodStatus(pods, { name: 'p', uid: 'u-p' }, running);
    expect(res.outcome).toBe('patched');
    expect(pods.calls[0]!.opts).toEqual({});
    expect(pods.calls[1]).toMatchObject({ verb: 'patch', name: 'p', patchType: PATCH_STRATEGIC, opts: { subresource: 'status' }, patch: { metadata: { uid: 'u-p' }, status: { phase: 'Running' } } });
  });

  it.each([
    ['the pod is gone', { err: notFound() }, 'gone'],
    ['the pod was re-created under another uid', { ok: serverPod('other') }, 'gone'],
    ['the status is already the desired one', { ok: { ...serverPod('u-p'), status: { phase: 'Running' } } }, 'unchanged'],
  ] as const)('sends no patch when %s', async (_name, answer, outcome) => {
    const pods = new FakeResourceClient(PODS, 'ns').answer('get', answer);
    expect((await syncPodStatus(pods, { name: 'p', uid: 'u-p' }, running)).outcome).toBe(outcome);
    expect(pods.verbs()).toEqual(['get p']);
  });

  it('passes other GET failures to the caller (the status manager retries on its next sync)', async () => {
    const failure = internal();
    const pods = new FakeResourceClient(PODS, 'ns').answer('get', { err: failure });
    await expect(syncPodStatus(pods, { name: 'p', uid: 'u-p' }, running)).rejects.toBe(failure);
  });
});
