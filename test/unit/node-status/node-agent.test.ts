// The node agent's loop over an in-memory fake of the nodes and leases API:
// the registration back-off (100 ms doubling to 7 s, the kubelet's), the
// problem logged once, registered() resolving with the uid, no request from
// a status update with nothing to say, and a stop that leaves nothing running. Waits are recorded, not slept.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import type { ApiObject } from '../../../src/client/types.js';
import { createNodeAgent, type NodeAgentOptions } from '../../../src/node-status/index.js';
import { HOST, recordingLog, resolved } from '../../integration/node-status/helpers.js';

interface Fake {
  failCreates: number;
  nodes: Map<string, ApiObject>;
  calls: string[];
}

function fakeClient(f: Fake): NodeAgentOptions['client'] {
  const resource = (type: { resource: string }): unknown => ({
    namespace: '',
    async get(name: string) {
      f.calls.push(`get ${type.resource}/${name}`);
      const n = type.resource === 'nodes' ? f.nodes.get(name) : undefined;
      if (n === undefined) throw new ApiError(404, 'NotFound', `${type.resource} "${name}" not found`);
      return structuredClone(n);
    },
    async create(obj: ApiObject) {
      f.calls.push(`create ${type.resource}`);
      if (type.resource === 'nodes' && f.failCreates-- > 0) throw new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
      const name = String((obj['metadata'] as Record<string, unknown>)['name']);
      const stored = { ...obj, metadata: { ...(obj['metadata'] as object), uid: `uid-${name}`, resourceVersion: '1' } };
      if (type.resource === 'nodes') f.nodes.set(name, stored);
      return structuredClone(stored);
    },
    async patch(name: string) {
      f.calls.push(`patch ${type.resource}/${name}`);
      return structuredClone(f.nodes.get(name) ?? {});
    },
    async update(obj: ApiObject) {
      f.calls.push(`update ${type.resource}`);
      return obj;
    },
  });
  return { rest: { resource } } as unknown as NodeAgentOptions['client'];
}

describe('createNodeAgent', () => {
  it('retries registration with the kubelet back-off, logs the problem once, resolves registered() with the uid', async () => {
    const f: Fake = { failCreates: 8, nodes: new Map(), calls: [] };
    const waits: number[] = [];
    const outcomes: string[] = [];
    const log = recordingLog();
    const ac = new AbortController();
    const agent = createNodeAgent({
      client: fakeClient(f),
      resolved: await resolved(['--root-dir=/tmp']),
      nodeName: 'n1',
      version: 'v0.1.0',
      log,
      onStatusUpdate: (o) => void outcomes.push(o),
      host: async () => HOST,
      sleep: async (ms, signal) => {
        waits.push(ms);
        if (signal.aborted) throw signal.reason;
        // The status loop's third wait (10 s each) ends the test.
        if (ms === 10_000 && waits.filter((w) => w === 10_000).length === 3) ac.abort(new Error('done'));
        await Promise.resolve();
        if (signal.aborted) throw signal.reason;
      },
    });
    const running = agent.run(ac.signal);
    await agent.ready;
    expect(await agent.registered()).toEqual({ name: 'n1', uid: 'uid-n1' });
    await running;
    expect(waits.slice(0, 9)).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
    expect(log.count(/Unable to register node with API server/)).toBe(1);
    expect(log.count(/Node registration done/)).toBe(1);
    expect(f.calls.filter((c) => c === 'create nodes')).toHaveLength(9);
    // Three status cycles with nothing new to say after the create: no patch, and no
    // GET either (the one GET of the node is the lease's, for its owner reference).
    expect(outcomes).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(f.calls).not.toContain('patch nodes/n1');
    expect(f.calls.filter((c) => c === 'get nodes/n1').length).toBeLessThanOrEqual(1);
  });

  it('stops while the API server is unreachable: run() settles, registered() stays pending', async () => {
    const f: Fake = { failCreates: Number.POSITIVE_INFINITY, nodes: new Map(), calls: [] };
    const ac = new AbortController();
    let creates = 0;
    const agent = createNodeAgent({
      client: fakeClient(f),
      resolved: await resolved(['--root-dir=/tmp']),
      nodeName: 'n2',
      version: 'v0.1.0',
      log: recordingLog(),
      host: async () => HOST,
      sleep: async (_ms, signal) => {
        if (++creates === 3) ac.abort(new Error('stop'));
        if (signal.aborted) throw signal.reason;
      },
    });
    await agent.run(ac.signal);
    const state = await Promise.race([agent.registered().then(() => 'registered'), Promise.resolve('pending')]);
    expect(state).toBe('pending');
  });
});
