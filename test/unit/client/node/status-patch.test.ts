import { describe, expect, it } from 'vitest';
import { nodeStatusPatchBody, podStatusPatchBody } from '../../../../src/client/node/index.js';

const ready = (status: string, heartbeat: string): Record<string, unknown> => ({ type: 'Ready', status, lastHeartbeatTime: heartbeat });
const mem = { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: 't0' };

const node = (status: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', uid: 'u-1', resourceVersion: '7', ...extra },
  spec: { podCIDR: '10.0.0.0/24' },
  status,
});

describe('nodeStatusPatchBody', () => {
  const cases: { name: string; old: Record<string, unknown>; new: Record<string, unknown>; want: unknown }[] = [
    { name: 'nothing changed: no patch', old: node({ conditions: [mem] }), new: node({ conditions: [mem] }), want: undefined },
    {
      name: 'a changed condition: merged by type, with the element order and the uid precondition',
      old: node({ conditions: [mem, ready('True', 't0')] }),
      new: node({ conditions: [mem, ready('True', 't1')] }),
      want: {
        metadata: { uid: 'u-1' },
        status: { $setElementOrder_conditions: [{ type: 'MemoryPressure' }, { type: 'Ready' }], conditions: [{ lastHeartbeatTime: 't1', type: 'Ready' }] },
      },
    },
    {
      name: 'a spec change is not the status writer\'s to send',
      old: node({ phase: 'Running' }),
      new: { ...node({ phase: 'Running' }), spec: { podCIDR: '10.9.0.0/24', unschedulable: true } },
      want: undefined,
    },
    {
      name: 'changed addresses are replaced as a whole',
      old: node({ addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }),
      new: node({ addresses: [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'InternalIP', address: '10.0.0.3' }] }),
      want: {
        metadata: { uid: 'u-1' },
        status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'InternalIP', address: '10.0.0.3' }, { $patch: 'replace' }] },
      },
    },
    {
      name: 'an annotation change goes with the status (upstream does not reset metadata)',
      old: node({ phase: 'Running' }),
      new: node({ phase: 'Running' }, { annotations: { a: 'b' } }),
      want: { metadata: { annotations: { a: 'b' }, uid: 'u-1' } },
    },
    {
      name: 'an old node without uid: no precondition to carry',
      old: { metadata: { name: 'n1' }, status: { phase: 'Pending' } },
      new: { metadata: { name: 'n1' }, status: { phase: 'Running' } },
      want: { status: { phase: 'Running' } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = nodeStatusPatchBody(c.old, c.new);
      const text = got === undefined ? undefined : JSON.parse(JSON.stringify(got).replaceAll('$setElementOrder/', '$setElementOrder_'));
      expect(text).toEqual(c.want);
    });
  }

  it('keys come out sorted, so equal inputs give equal bytes', () => {
    const body = nodeStatusPatchBody(node({ phase: 'Pending' }), node({ phase: 'Running' }, { labels: { x: 'y' } }));
    expect(JSON.stringify(body)).toBe('{"metadata":{"labels":{"x":"y"},"uid":"u-1"},"status":{"phase":"Running"}}');
  });
});

describe('podStatusPatchBody', () => {
  const cond = (type: string, status: string): Record<string, unknown> => ({ type, status });
  const cases: { name: string; old: Record<string, unknown>; new: Record<string, unknown>; want: unknown }[] = [
    { name: 'equal statuses: no patch (upstream: the bytes equal the uid-only patch)', old: { phase: 'Running' }, new: { phase: 'Running' }, want: undefined },
    { name: 'a new phase, with the uid precondition', old: { phase: 'Pending' }, new: { phase: 'Running' }, want: '{"metadata":{"uid":"pod-uid"},"status":{"phase":"Running"}}' },
    {
      name: 'conditions merge by type and keep their order',
      old: { conditions: [cond('Initialized', 'True'), cond('Ready', 'False')] },
      new: { conditions: [cond('Initialized', 'True'), cond('Ready', 'True')] },
      want: '{"metadata":{"uid":"pod-uid"},"status":{"$setElementOrder/conditions":[{"type":"Initialized"},{"type":"Ready"}],"conditions":[{"status":"True","type":"Ready"}]}}',
    },
    { name: 'a field gone from the new status is deleted', old: { phase: 'Running', message: 'm' }, new: { phase: 'Running' }, want: '{"metadata":{"uid":"pod-uid"},"status":{"message":null}}' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = podStatusPatchBody('pod-uid', c.old, c.new);
      expect(got === undefined ? undefined : JSON.stringify(got)).toEqual(c.want);
    });
  }
});
