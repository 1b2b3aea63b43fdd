import { describe, expect, it } from 'vitest';
import type { RuntimeCondition } from '../../../src/cri/types.js';
import { runtimeNotReady, statusFacts } from '../../../src/node-status/facts.js';
import { HOST, resolved } from '../../integration/node-status/helpers.js';

const up = (type: string): RuntimeCondition => ({ type, status: true, reason: '', message: '' });
const down = (type: string, reason: string, message: string): RuntimeCondition => ({ type, status: false, reason, message });

describe('runtimeNotReady (the kubelet runtime state words)', () => {
  it.each([
    ['ready', [up('RuntimeReady'), up('NetworkReady')], undefined, []],
    ['not asked (runtime without status)', undefined, undefined, []],
    ['the status call failed', null, undefined, ['container runtime is down']],
    ['PLEG unhealthy', [up('RuntimeReady'), up('NetworkReady')], 'PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s', ['PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s']],
    ['network not ready', [up('RuntimeReady'), down('NetworkReady', 'NetworkPluginNotReady', 'cni plugin not initialized')], undefined, ['container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized']],
    ['runtime not ready, network absent', [down('RuntimeReady', 'R', 'M')], undefined, ['container runtime not ready: RuntimeReady=false reason:R message:M', 'container runtime network not ready: <nil>']],
  ])('%s', (_name, conds, health, want) => {
    expect(runtimeNotReady(conds as readonly RuntimeCondition[] | null | undefined, health)).toEqual(want);
  });
});

describe('statusFacts', () => {
  it('derives capacity from --max-pods/--pods-per-core, allocatable from the reservations, addresses from --node-ip', async () => {
    const r = await resolved(['--root-dir=/tmp', '--pods-per-core=10', '--system-reserved=cpu=500m,memory=1Gi', '--node-ip=10.0.0.5', '--port=10260']);
    const { facts, addressProblem } = statusFacts(HOST, { version: { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v1.7.0', runtimeApiVersion: 'v1' }, images: [], conditions: undefined, problem: undefined }, { resolved: r, hostname: 'n1', version: 'v9', notReady: [], pressure: { memory: false, disk: false, pid: false } });
    expect(addressProblem).toBeUndefined();
    expect(facts.capacity).toMatchObject({ cpu: 4000, pods: 40 });
    expect(facts.allocatable).toMatchObject({ cpu: 3500, pods: 40, memory: 8 * 1024 ** 3 - 1024 ** 3 - 100 * 1024 ** 2 });
    expect(facts.port).toBe(10260);
    expect(facts.nodeInfo).toMatchObject({ containerRuntimeVersion: 'containerd://v1.7.0', kubeletVersion: 'v9', kubeProxyVersion: 'v9' });
    expect(facts.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }]);
  });
  it('reports an unusable --node-ip and leaves the addresses unknown', async () => {
    const r = await resolved(['--root-dir=/tmp', '--node-ip=10.9.9.9']);
    const { facts, addressProblem } = statusFacts(HOST, { version: undefined, images: undefined, conditions: undefined, problem: undefined }, { resolved: r, hostname: 'n1', version: 'v9', notReady: [], pressure: { memory: false, disk: false, pid: false } });
    expect(addressProblem).toBe(`failed to validate nodeIP: node IP: "10.9.9.9" not found in the host's network interfaces`);
    expect(facts.addresses).toBeUndefined();
    expect(facts.nodeInfo.containerRuntimeVersion).toBe('');
  });
});
