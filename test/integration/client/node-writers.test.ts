// The node writers (src/client/node) against the real platform-apiserver
// over the client's rest layer (protobuf), as API-server mode will use them:
// a node status patch with the uid precondition (a wrong uid is refused), a
// pod status patch, and the lease heartbeat creating the lease with the node
// as owner, renewing it by PUT, and recovering from a 409 when someone else
// wrote the lease in between.
import { describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/api/codec/index.js';
import { MEDIA_PROTOBUF } from '../../../src/api/media.js';
import { NODE_LEASE_NAMESPACE, NodeLeaseController, patchNodeStatus, syncPodStatus, updateNodeStatus } from '../../../src/client/node/index.js';
import { RESOURCES } from '../../../src/client/rest/index.js';
import type { ClientLog } from '../../../src/client/types.js';
import { describeBackends, uniq } from '../../conformance/helpers/backends.js';
import { restClientsPerRepresentation } from './helpers/transport.js';

const meta = (o: ApiObject | undefined): Record<string, unknown> => (o?.['metadata'] ?? {}) as Record<string, unknown>;
const spec = (o: ApiObject | undefined): Record<string, unknown> => (o?.['spec'] ?? {}) as Record<string, unknown>;

function recordingLog(): ClientLog & { errors: string[] } {
  const errors: string[] = [];
  return { errors, info: () => undefined, warn: () => undefined, error: (m, f) => void errors.push(`${m} ${JSON.stringify(f ?? {})}`) };
}

describeBackends('client node writers', {}, (srv) => {
  const { clientFor } = restClientsPerRepresentation(srv);
  const rest = () => clientFor(MEDIA_PROTOBUF);

  async function makeNode(): Promise<ApiObject> {
    const name = uniq('node');
    return rest().resource(RESOURCES.nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
  }

  describe('status', () => {
    it('patches a node status with the uid precondition; the same patch with another uid is refused', async () => {
      const nodes = rest().resource(RESOURCES.nodes);
      const node = await makeNode();
      const name = String(meta(node)['name']);
      const log = recordingLog();
      const ready = (current: ApiObject): ApiObject => ({ ...current, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', message: 'agent is posting ready status', lastHeartbeatTime: '2026-11-24T10:00:00Z', lastTransitionTime: '2026-11-24T10:00:00Z' }] } });
      const first = await updateNodeStatus(nodes, name, ready, { log });
      expect(first.outcome).toBe('patched');
      expect((await nodes.get(name))['status']).toMatchObject({ conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady' }] });
      // Nothing changed: nothing sent.
      expect((await updateNodeStatus(nodes, name, (c) => c, { log })).outcome).toBe('unchanged');
      // A node deleted and re-created under the same name has another uid: the old writer's patch must not land on it.
      const stale = await nodes.get(name);
      const impostor = { ...stale, metadata: { ...meta(stale), uid: '00000000-0000-0000-0000-000000000000' } };
      const err = await patchNodeStatus(nodes, impostor, { ...impostor, status: { conditions: [{ type: 'Ready', status: 'False' }] } }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 422 });
      expect(log.errors).toEqual([]);
    });

    it('patches a pod status for its uid, and reports gone for a pod re-created under the same name', async () => {
      const ns = uniq('pods');
      await rest().resource(RESOURCES.namespaces).create({ metadata: { name: ns } });
      const pods = rest().resource(RESOURCES.pods, ns);
      const pod = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'registry.local/app:1' }] } });
      const uid = String(meta(pod)['uid']);
      const running = (): ApiObject => ({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
      expect((await syncPodStatus(pods, { name: 'p', uid }, running)).outcome).toBe('patched');
      expect((await pods.get('p'))['status']).toMatchObject({ phase: 'Running' });
      expect((await syncPodStatus(pods, { name: 'p', uid }, running)).outcome).toBe('unchanged');
      await pods.delete('p', { gracePeriodSeconds: 0 });
      await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'registry.local/app:1' }] } });
      expect((await syncPodStatus(pods, { name: 'p', uid }, running)).outcome).toBe('gone');
    });
  });

  describe('lease', () => {
    it('creates the lease owned by the node, renews it by PUT, and recovers from a conflicting write', async () => {
      await rest().resource(RESOURCES.namespaces).create({ metadata: { name: NODE_LEASE_NAMESPACE } }).catch(() => undefined);
      const node = await makeNode();
      const name = String(meta(node)['name']);
      const leases = rest().resource(RESOURCES.leases, NODE_LEASE_NAMESPACE);
      const log = recordingLog();
      let clock = Date.parse('2026-11-24T10:00:00Z');
      const ctl = new NodeLeaseController({ leases, nodes: rest().resource(RESOURCES.nodes), nodeName: name, log, now: () => clock });
      const ac = new AbortController();
      await ctl.sync(ac.signal);
      const created = await leases.get(name);
      expect(spec(created)).toMatchObject({ holderIdentity: name, leaseDurationSeconds: 40 });
      expect(meta(created)['ownerReferences']).toMatchObject([{ kind: 'Node', name, uid: meta(node)['uid'] }]);

      clock += 10_000;
      await ctl.sync(ac.signal);
      const renewed = await leases.get(name);
      expect(spec(renewed)['renewTime']).not.toBe(spec(created)['renewTime']);
      expect(Number(meta(renewed)['resourceVersion'])).toBeGreaterThan(Number(meta(created)['resourceVersion']));

      // Someone else writes the lease: the controller's next PUT conflicts, it re-reads and renews.
      await leases.update({ ...renewed, spec: { ...spec(renewed), leaseTransitions: 1 } });
      clock += 10_000;
      await ctl.sync(ac.signal);
      const after = await leases.get(name);
      expect(spec(after)).toMatchObject({ holderIdentity: name, leaseTransitions: 1 });
      expect(spec(after)['renewTime']).not.toBe(spec(renewed)['renewTime']);
      expect(meta(ctl.latestLease)['resourceVersion']).toBe(meta(after)['resourceVersion']);
    });
  });
});
