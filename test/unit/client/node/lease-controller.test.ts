import { describe, expect, it } from 'vitest';
import { NODE_LEASE_NAMESPACE, NodeLeaseController } from '../../../../src/client/node/index.js';
import type { ApiObject } from '../../../../src/client/types.js';
import { FakeResourceClient, LEASES, NODES, conflict, internal, notFound, recordingLog } from './fake-resource-client.js';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const NODE: ApiObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'node-uid' } };
const OWNER = [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }];

const serverLease = (rv: string, owned = true): ApiObject => ({
  apiVersion: 'coordination.platform.io/v1',
  kind: 'Lease',
  metadata: { name: 'n1', namespace: NODE_LEASE_NAMESPACE, uid: 'lease-uid', resourceVersion: rv, ...(owned ? { ownerReferences: OWNER } : {}) },
  spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-11-24T11:59:50.000000Z' },
});

function harness(opts: { leaseDurationSeconds?: number } = {}) {
  const leases = new FakeResourceClient(LEASES, NODE_LEASE_NAMESPACE);
  const nodes = new FakeResourceClient(NODES, '');
  const waits: number[] = [];
  let clock = T0;
  let repeated = 0;
  const log = recordingLog();
  const ctl = new NodeLeaseController({
    leases,
    nodes,
    nodeName: 'n1',
    log,
    ...opts,
    onRepeatedHeartbeatFailure: () => void repeated++,
    now: () => (clock += 1000),
    random: () => 0.5,
    sleep: (ms, signal) => {
      waits.push(ms);
      return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
  });
  return { ctl, leases, nodes, waits, log, repeated: () => repeated };
}

const signal = (): AbortSignal => new AbortController().signal;

describe('NodeLeaseController.sync', () => {
  it('first heartbeat: GET, 404, GET the node for the owner, create; no update right after the create', async () => {
    const h = harness();
    h.leases.answer('get', { err: notFound() }).answer('create', { ok: serverLease('1') });
    h.nodes.answer('get', { ok: NODE });
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'create']);
    expect(h.leases.calls[1]!.obj).toEqual({
      apiVersion: 'coordination.platform.io/v1',
      kind: 'Lease',
      metadata: { name: 'n1', namespace: 'platform-node-lease', ownerReferences: OWNER },
      spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-11-24T12:00:01.000000Z' },
    });
    expect(h.ctl.latestLease).toEqual(serverLease('1'));
  });

  it('later heartbeats PUT the last lease held with a new renewTime, without a GET', async () => {
    const h = harness();
    h.leases.answer('get', { err: notFound() }).answer('create', { ok: serverLease('1') }).answer('update', { ok: serverLease('2') }, { ok: serverLease('3') });
    h.nodes.answer('get', { ok: NODE });
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'create', 'update', 'update']);
    expect(h.nodes.verbs()).toEqual(['get n1']);
    const puts = h.leases.calls.filter((c) => c.verb === 'update').map((c) => c.obj!);
    expect(puts.map((p) => (p['metadata'] as { resourceVersion: string }).resourceVersion)).toEqual(['1', '2']);
    expect(puts.map((p) => (p['spec'] as { renewTime: string }).renewTime)).toEqual(['2026-11-24T12:00:02.000000Z', '2026-11-24T12:00:03.000000Z']);
  });

  it('an existing lease found at start is renewed at once (GET then PUT)', async () => {
    const h = harness();
    h.leases.answer('get', { ok: serverLease('9') }).answer('update', { ok: serverLease('10') });
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'update']);
    expect(h.nodes.calls).toHaveLength(0);
  });

  it('a 409 re-GETs the lease and PUTs again from the fresh one', async () => {
    const h = harness();
    h.leases.answer('get', { ok: serverLease('9') }, { ok: serverLease('12') }).answer('update', { ok: serverLease('10') }, { err: conflict() }, { ok: serverLease('13') });
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'update', 'update', 'get n1', 'update']);
    expect((h.leases.calls[4]!.obj!['metadata'] as { resourceVersion: string }).resourceVersion).toBe('12');
    expect(h.ctl.latestLease).toEqual(serverLease('13'));
    expect(h.repeated()).toBe(0);
  });

  it('5 failed PUTs fall back to GET then PUT; repeated failures are reported from the second', async () => {
    const h = harness();
    h.leases.answer('get', { ok: serverLease('9') }, { ok: serverLease('9') }).answer('update', { ok: serverLease('10') });
    for (let i = 0; i < 5; i++) h.leases.answer('update', { err: internal() });
    h.leases.answer('update', { ok: serverLease('11') });
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'update', 'update', 'update', 'update', 'update', 'update', 'get n1', 'update']);
    expect(h.repeated()).toBe(4);
    expect(h.log.lines).toContain('info failed to update lease using latest lease, fallback to ensure lease');
    expect(h.ctl.latestLease).toEqual(serverLease('11'));
  });

  it('a lease deleted under us: the PUTs fail, the GET finds nothing, it is created again', async () => {
    const h = harness();
    h.leases.answer('get', { ok: serverLease('9') }, { err: notFound() }).answer('update', { ok: serverLease('10') }).answer('create', { ok: serverLease('20') });
    for (let i = 0; i < 5; i++) h.leases.answer('update', { err: notFound() });
    h.nodes.answer('get', { ok: NODE });
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    expect(h.leases.verbs().slice(-2)).toEqual(['get n1', 'create']);
    expect(h.nodes.verbs()).toEqual(['get n1']);
    expect(h.ctl.latestLease).toEqual(serverLease('20'));
  });

  it('failed GETs back off 200 ms doubling up to 7 s until the lease is there', async () => {
    const h = harness();
    for (let i = 0; i < 7; i++) h.leases.answer('get', { err: internal() });
    h.leases.answer('get', { ok: serverLease('9') }).answer('update', { ok: serverLease('10') });
    await h.ctl.sync(signal());
    expect(h.waits).toEqual([200, 400, 800, 1600, 3200, 6400, 7000]);
    expect(h.ctl.latestLease).toEqual(serverLease('10'));
  });

  it('when the node cannot be read, the lease is not created this time; the next heartbeat creates it with its owner', async () => {
    const h = harness();
    h.leases.answer('get', { err: notFound() }, { err: notFound() }).answer('create', { ok: serverLease('1') });
    h.nodes.answer('get', { err: notFound() }, { ok: NODE });
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1']);
    expect(h.ctl.latestLease).toBeUndefined();
    await h.ctl.sync(signal());
    expect(h.leases.verbs()).toEqual(['get n1', 'get n1', 'create']);
    expect((h.leases.calls[2]!.obj!['metadata'] as { ownerReferences: unknown }).ownerReferences).toEqual(OWNER);
  });

  it('a held lease without owner is renewed without it when the node cannot be read, and gains it later', async () => {
    const h = harness();
    h.leases.answer('get', { ok: serverLease('9', false) }).answer('update', { ok: serverLease('10', false) }, { ok: serverLease('11') });
    h.nodes.answer('get', { err: internal() }, { ok: NODE });
    await h.ctl.sync(signal());
    await h.ctl.sync(signal());
    const owners = h.leases.calls.filter((c) => c.verb === 'update').map((c) => (c.obj!['metadata'] as { ownerReferences?: unknown }).ownerReferences);
    expect(owners).toEqual([undefined, OWNER]);
  });

  it('an abort during the back-off rejects with the signal\'s reason', async () => {
    const h = harness();
    const ac = new AbortController();
    const reason = new Error('stop');
    h.leases.answer('get', { err: internal() });
    const ctl = new NodeLeaseController({
      leases: h.leases,
      nodes: h.nodes,
      nodeName: 'n1',
      log: recordingLog(),
      sleep: (_ms, s) => {
        ac.abort(reason);
        return Promise.reject(s.reason);
      },
    });
    await expect(ctl.sync(ac.signal)).rejects.toBe(reason);
  });
});

describe('NodeLeaseController.run', () => {
  it('heartbeats at once, then every quarter of the duration plus jitter, and resolves once aborted', async () => {
    const h = harness({ leaseDurationSeconds: 20 });
    const ac = new AbortController();
    h.leases.answer('get', { ok: serverLease('9') }).answer('update', { ok: serverLease('10') }, { ok: serverLease('11') }, { ok: serverLease('12') });
    const ctl = new NodeLeaseController({
      leases: h.leases,
      nodes: h.nodes,
      nodeName: 'n1',
      leaseDurationSeconds: 20,
      log: recordingLog(),
      random: () => 0.5,
      sleep: (ms, s) => {
        h.waits.push(ms);
        if (h.waits.length === 3) ac.abort(new Error('stop'));
        return s.aborted ? Promise.reject(s.reason) : Promise.resolve();
      },
    });
    expect(ctl.renewIntervalMs).toBe(5000);
    await ctl.run(ac.signal);
    expect(h.waits).toEqual([5100, 5100, 5100]);
    expect(h.leases.verbs()).toEqual(['get n1', 'update', 'update', 'update']);
  });

  it('with the real timer: stops promptly when aborted mid-wait, leaving no timer behind', async () => {
    const leases = new FakeResourceClient(LEASES, NODE_LEASE_NAMESPACE).answer('get', { ok: serverLease('9') }).answer('update', { ok: serverLease('10') });
    const ac = new AbortController();
    const ctl = new NodeLeaseController({ leases, nodes: new FakeResourceClient(NODES, ''), nodeName: 'n1', log: recordingLog() });
    const running = ctl.run(ac.signal);
    await new Promise<void>((resolve) => {
      const poll = (n: number): void => {
        if (leases.calls.length >= 2 || n > 1000) resolve();
        else setImmediate(() => poll(n + 1));
      };
      poll(0);
    });
    ac.abort(new Error('stop'));
    await running;
    expect(leases.verbs()).toEqual(['get n1', 'update']);
  });
});
