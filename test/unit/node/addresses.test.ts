import { describe, expect, it } from 'vitest';
import { nodeAddresses, nodeIPProblem, parseDefaultRouteV4, parseDefaultRouteV6, validateNodeIP, type HostNetwork } from '../../../src/node/addresses.js';

const host: HostNetwork = {
  interfaces: {
    lo: [{ address: '127.0.0.1', internal: true }, { address: '::1', internal: true }],
    eth0: [{ address: '10.0.0.5', internal: false }, { address: 'fd00::5', internal: false }, { address: 'fe80::1', internal: false }],
    eth1: [{ address: '192.168.1.9', internal: false }],
  },
  defaultRoute: { v4: 'eth0', v6: 'eth0' },
};

describe('nodeIPProblem / validateNodeIP (the kubelet validateNodeIP messages)', () => {
  it.each([
    ['10.0.0.5', undefined],
    ['fd00::5', undefined],
    ['127.0.0.1', "nodeIP can't be loopback address"],
    ['::1', "nodeIP can't be loopback address"],
    ['224.0.0.1', "nodeIP can't be a multicast address"],
    ['ff02::1', "nodeIP can't be a multicast address"],
    ['169.254.1.1', "nodeIP can't be a link-local unicast address"],
    ['fe80::1', "nodeIP can't be a link-local unicast address"],
    ['0.0.0.0', "nodeIP can't be an all zeros address"],
    ['::', "nodeIP can't be an all zeros address"],
    ['nope', 'nodeIP must be a valid IP address'],
  ])('%s → %s', (ip, want) => {
    expect(nodeIPProblem(ip)).toBe(want);
  });
  it('requires the address on one of the host interfaces', () => {
    expect(validateNodeIP('10.0.0.5', host)).toBeUndefined();
    expect(validateNodeIP('fd00:0:0::5', host)).toBeUndefined();
    expect(validateNodeIP('10.9.9.9', host)).toBe(`node IP: "10.9.9.9" not found in the host's network interfaces`);
  });
});

describe('nodeAddresses', () => {
  it.each([
    ['', 'n1', [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }]],
    ['192.168.1.9', 'n1', [{ type: 'InternalIP', address: '192.168.1.9' }, { type: 'Hostname', address: 'n1' }]],
    ['10.0.0.5,fd00::5', 'n1', [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: 'fd00::5' }, { type: 'Hostname', address: 'n1' }]],
    ['fd00::5,10.0.0.5', 'n1', [{ type: 'InternalIP', address: 'fd00::5' }, { type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }]],
    ['::', 'n1', [{ type: 'InternalIP', address: 'fd00::5' }, { type: 'Hostname', address: 'n1' }]],
    ['0.0.0.0', 'n1', [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }]],
    ['', '192.168.1.9', [{ type: 'InternalIP', address: '192.168.1.9' }, { type: 'Hostname', address: '192.168.1.9' }]],
  ])('--node-ip=%j hostname %s', (nodeIP, hostname, want) => {
    expect(nodeAddresses(nodeIP, hostname, host)).toEqual({ ok: true, addresses: want });
  });
  it('refuses a --node-ip the host does not have, or a loopback one, with the kubelet words', () => {
    expect(nodeAddresses('10.9.9.9', 'n1', host)).toEqual({ ok: false, error: `failed to validate nodeIP: node IP: "10.9.9.9" not found in the host's network interfaces` });
    expect(nodeAddresses('127.0.0.1', 'n1', host)).toEqual({ ok: false, error: "failed to validate nodeIP: nodeIP can't be loopback address" });
    expect(nodeAddresses('10.0.0.5,fd00::9', 'n1', host)).toMatchObject({ ok: false, error: expect.stringMatching(/^failed to validate secondaryNodeIP: /) });
  });
  it('falls back to any external address without a default route, and fails with none', () => {
    expect(nodeAddresses('', 'n1', { interfaces: host.interfaces, defaultRoute: {} })).toMatchObject({ ok: true, addresses: [{ address: '10.0.0.5' }, { type: 'Hostname' }] });
    expect(nodeAddresses('', 'n1', { interfaces: { lo: host.interfaces['lo'] }, defaultRoute: {} })).toMatchObject({ ok: false, error: expect.stringMatching(/^can't get ip address of node n1/) });
  });
});

describe('default routes from /proc', () => {
  it('finds the IPv4 default route interface', () => {
    const text = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n' + 'eth1\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n' + 'eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n';
    expect(parseDefaultRouteV4(text)).toBe('eth0');
    expect(parseDefaultRouteV4('Iface\n')).toBeUndefined();
  });
  it('finds the IPv6 default route interface, skipping lo', () => {
    const z = '0'.repeat(32);
    const text = `${z} 00 ${z} 00 ${z} ffffffff 00000001 00000000 00200200 lo\n${z} 00 ${z} 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 eth0\n`;
    expect(parseDefaultRouteV6(text)).toBe('eth0');
  });
});
