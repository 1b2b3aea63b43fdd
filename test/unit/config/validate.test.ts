import { describe, expect, it, vi } from 'vitest';
import { parseFlags } from '../../../src/cli/flags.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { originOf, validate } from '../../../src/config/validate.js';

async function check(argv: string[], cpuCount?: number | (() => number | undefined)) {
  const p = parseFlags(argv);
  const resolved = await resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env: {} });
  return validate(resolved, { cpuCount }).problems.map((e) => e.message);
}

describe('static CPU manager and the node size', () => {
  it('may reserve every CPU of the node, not more', async () => {
    expect(await check(['--cpu-manager-policy=static', '--reserved-cpus=0-3'], 4)).toEqual([]);
    expect(await check(['--cpu-manager-policy=static', '--system-reserved=cpu=4'], 4)).toEqual([]);
    expect(await check(['--cpu-manager-policy=static', '--reserved-cpus=0-4'], 4)).toEqual(['cpuManagerPolicy (--cpu-manager-policy): the "static" policy cannot reserve 5 CPUs on a node with 4 online']);
    expect(await check(['--cpu-manager-policy=static', '--system-reserved=cpu=4500m'], 4)).toHaveLength(1);
  });
  it('counts the CPUs only when the static policy asks', async () => {
    const count = vi.fn(() => 2);
    await check([], count);
    expect(count).not.toHaveBeenCalled();
    await check(['--cpu-manager-policy=static', '--reserved-cpus=0'], count);
    expect(count).toHaveBeenCalledTimes(1);
  });
});

describe('originOf', () => {
  const prov = new Map([
    ['maxPods', { kind: 'file' as const, file: '/etc/a.yaml' }],
    ['port', { kind: 'flag' as const, flag: 'port' }],
    ['eventBurst', { kind: 'dropin' as const, file: '/etc/d/10.conf' }],
  ]);
  it.each([
    [['maxPods'], ' (set by --config /etc/a.yaml)'],
    [['eventBurst'], ' (set by drop-in /etc/d/10.conf)'],
    [['port'], ''],
    [['registryBurst'], ''],
    [['port', 'maxPods'], ' (maxPods set by --config /etc/a.yaml)'],
    [['maxPods', 'eventBurst'], ' (set by --config /etc/a.yaml; eventBurst set by drop-in /etc/d/10.conf)'],
  ])('%j → %j', (paths, want) => {
    expect(originOf(paths, prov)).toBe(want);
  });
});
