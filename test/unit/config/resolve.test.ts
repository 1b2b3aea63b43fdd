import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseFlags } from '../../../src/cli/flags.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { ValidationError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/agent-process.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const HEAD = { apiVersion: 'agent.config.platform.io/v1beta1', kind: 'AgentConfiguration' };

async function resolve(argv: string[], env: Record<string, string> = {}) {
  const p = parseFlags(argv);
  return resolveConfig({ configFlags: p.configFlags, otherFlags: p.otherFlags, env });
}

describe('resolveConfig', () => {
  it('layers defaults < file < drop-ins < flags and records the winner of each field', async () => {
    const cfg = tmp.write('c.yaml', stringify({ ...HEAD, maxPods: 10, eventBurst: 10, podsPerCore: 10 }));
    tmp.write('d/10.conf', stringify({ ...HEAD, eventBurst: 20, podsPerCore: 20 }));
    const r = await resolve(['--config', cfg, '--config-dir', `${tmp.dir}/d`, '--pods-per-core=30'], { AGENT_CONFIG_DROPIN_DIR_ALPHA: '' });
    expect([r.config.maxPods, r.config.eventBurst, r.config.podsPerCore, r.config.registryBurst]).toEqual([10, 20, 30, 10]);
    expect(r.provenance.get('maxPods')).toEqual({ kind: 'file', file: cfg });
    expect(r.provenance.get('eventBurst')).toEqual({ kind: 'dropin', file: `${tmp.dir}/d/10.conf` });
    expect(r.provenance.get('podsPerCore')).toEqual({ kind: 'flag', flag: 'pods-per-core' });
    expect(r.provenance.get('registryBurst')).toEqual({ kind: 'default' });
    expect(r.files).toEqual([cfg, `${tmp.dir}/d/10.conf`]);
  });
  it('uses the v1beta1 defaults with --config and the flag defaults without', async () => {
    const cfg = tmp.write('empty.yaml', stringify(HEAD));
    const [withFile, without] = await Promise.all([resolve(['--config', cfg]), resolve([])]);
    expect(withFile.config.readOnlyPort).toBe(0);
    expect(without.config.readOnlyPort).toBe(10255);
    expect(withFile.config.authorization.mode).toBe('Webhook');
    expect(without.config.authorization.mode).toBe('AlwaysAllow');
  });
  it('feature gates from flags merge with the file gates', async () => {
    const cfg = tmp.write('g.yaml', stringify({ ...HEAD, featureGates: { NodeSwap: true, PodHostIPs: true } }));
    const r = await resolve(['--config', cfg, '--feature-gates=PodHostIPs=false,QOSReserved=true']);
    expect(r.config.featureGates).toEqual({ NodeSwap: true, PodHostIPs: false, QOSReserved: true });
  });
  it('v1beta1 defaulting per layer: zeroes are unset, a negative podPidsLimit is -1, derived defaults follow their source', async () => {
    const cfg = tmp.write('dflt/c.yaml', stringify({ ...HEAD, maxPods: 40, maxParallelImagePulls: 3, nodeStatusUpdateFrequency: '20s', podPidsLimit: 100 }));
    tmp.write('dflt/d/10.conf', stringify({ ...HEAD, maxPods: 0, maxParallelImagePulls: 1, nodeStatusUpdateFrequency: '40s', podPidsLimit: -7, registryBurst: 0 }));
    const r = await resolve(['--config', cfg, '--config-dir', `${tmp.dir}/dflt/d`], { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' });
    const drop = { kind: 'dropin', file: `${tmp.dir}/dflt/d/10.conf` };
    expect([r.config.maxPods, r.config.podPidsLimit, r.config.registryBurst]).toEqual([40, -1, 10]);
    expect(r.provenance.get('podPidsLimit')).toEqual(drop);
    expect(r.provenance.get('maxPods')).toEqual({ kind: 'file', file: cfg });
    // The file's parallel limit turned serial pulls off; the drop-in's limit of 1 turns them back on.
    expect([r.config.maxParallelImagePulls, r.config.serializeImagePulls]).toEqual([1, true]);
    expect(r.provenance.get('serializeImagePulls')).toEqual(drop);
    expect(r.config.nodeStatusReportFrequency).toBe(40_000);
    expect(r.provenance.get('nodeStatusReportFrequency')).toEqual(drop);
  });
  it('an explicit serializeImagePulls is kept when a later drop-in sets a parallel limit', async () => {
    const cfg = tmp.write('ser/c.yaml', stringify({ ...HEAD, serializeImagePulls: true }));
    tmp.write('ser/d/10.conf', stringify({ ...HEAD, maxParallelImagePulls: 5 }));
    const r = await resolve(['--config', cfg, '--config-dir', `${tmp.dir}/ser/d`], { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' });
    expect([r.config.maxParallelImagePulls, r.config.serializeImagePulls]).toEqual([5, true]);
    expect(r.provenance.get('serializeImagePulls')).toEqual({ kind: 'file', file: cfg });
  });
  it('collects the problems of every file before failing', async () => {
    const bad1 = tmp.write('bad/c.yaml', stringify({ ...HEAD, maxPods: 'x' }));
    tmp.write('bad/d/10.conf', stringify({ ...HEAD, port: 'y' }));
    const err = await resolve(['--config', bad1, '--config-dir', `${tmp.dir}/bad/d`], { AGENT_CONFIG_DROPIN_DIR_ALPHA: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).problems.map((p) => p.field)).toEqual(['maxPods', 'port']);
  });
});
