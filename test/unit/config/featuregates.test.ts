import { describe, expect, it } from 'vitest';
import { FeatureGates, KNOWN_GATES, gateHelpLines, resolveFeatureGates, type GateSpec } from '../../../src/config/featuregates.js';
import { AgentError } from '../../../src/errors.js';

const count = (stage: string, dflt: boolean): number => [...KNOWN_GATES.values()].filter((g) => g.stage === stage && g.default === dflt).length;

describe('KNOWN_GATES', () => {
  it('holds the 1.28 gates of the spec, renamed', () => {
    expect(count('ALPHA', false)).toBe(58);
    expect(count('ALPHA', true)).toBe(1);
    expect(count('BETA', true)).toBe(50);
    expect(count('BETA', false)).toBe(7);
    // GA and deprecated gates 1.28 still registers: 25 locked on, 2 GA switchable, 4 deprecated.
    expect(count('GA', true)).toBe(27);
    expect(count('DEPRECATED', false)).toBe(4);
    expect(KNOWN_GATES.size).toBe(116 + 31);
  });

  it.each<[string, GateSpec]>([
    ['SeccompDefault', { name: 'SeccompDefault', stage: 'GA', default: true, lockToDefault: true }],
    ['ExpandedDNSConfig', { name: 'ExpandedDNSConfig', stage: 'GA', default: true, lockToDefault: true }],
    ['AgentPodResources', { name: 'AgentPodResources', stage: 'GA', default: true, lockToDefault: true }],
    ['TopologyManager', { name: 'TopologyManager', stage: 'GA', default: true, lockToDefault: true }],
    ['ExecProbeTimeout', { name: 'ExecProbeTimeout', stage: 'GA', default: true }],
    ['CSIMigrationRBD', { name: 'CSIMigrationRBD', stage: 'DEPRECATED', default: false }],
    ['InTreePluginRBDUnregister', { name: 'InTreePluginRBDUnregister', stage: 'DEPRECATED', default: false }],
    ['ExperimentalHostUserNamespaceDefaultingGate', { name: 'ExperimentalHostUserNamespaceDefaultingGate', stage: 'DEPRECATED', default: false, lockToDefault: true }],
  ])('knows the GA/deprecated gate %s', (name, spec) => {
    expect(KNOWN_GATES.get(name)).toEqual(spec);
  });

  it('accepts GA gates operators still carry, with a warning, and refuses the opposite of a locked one', () => {
    const ok = resolveFeatureGates({ SeccompDefault: true, CSIMigrationRBD: true, ExecProbeTimeout: false });
    expect(ok.problems).toEqual([]);
    expect(ok.warnings).toEqual([
      'Setting GA feature gate SeccompDefault=true. It will be removed in a future release.',
      'Setting deprecated feature gate CSIMigrationRBD=true. It will be removed in a future release.',
      'Setting GA feature gate ExecProbeTimeout=false. It will be removed in a future release.',
    ]);
    expect(ok.gates.ExecProbeTimeout).toBe(false);
    expect(resolveFeatureGates({ ExpandedDNSConfig: false }).problems).toEqual(['cannot set feature gate ExpandedDNSConfig to false, feature is locked to true']);
  });

  it('AllAlpha and AllBeta leave GA and deprecated gates alone', () => {
    const r = resolveFeatureGates({ AllAlpha: true, AllBeta: false });
    expect([r.gates.SeccompDefault, r.gates.CSIMigrationRBD]).toEqual([true, false]);
  });

  it.each<[string, GateSpec['stage'], boolean]>([
    ['InTreePluginAWSUnregister', 'ALPHA', false],
    ['InTreePluginAzureDiskUnregister', 'ALPHA', false],
    ['InTreePluginAzureFileUnregister', 'ALPHA', false],
    ['InTreePluginGCEUnregister', 'ALPHA', false],
    ['InTreePluginOpenStackUnregister', 'ALPHA', false],
    ['InTreePluginPortworxUnregister', 'ALPHA', false],
    ['InTreePluginvSphereUnregister', 'ALPHA', false],
    ['SkipReadOnlyValidationGCE', 'ALPHA', false],
    ['CSIMigrationPortworx', 'BETA', false],
    ['PlatformProxyDrainingTerminatingNodes', 'ALPHA', false],
    ['AgentTracing', 'BETA', true],
    ['RotateAgentServerCertificate', 'BETA', true],
    ['WindowsHostNetwork', 'ALPHA', true],
    ['EventedPLEG', 'BETA', false],
    ['AllAlpha', 'ALPHA', false],
    ['AllBeta', 'BETA', false],
  ])('%s is %s, default %s', (name, stage, dflt) => {
    expect(KNOWN_GATES.get(name)).toEqual({ name, stage, default: dflt });
  });

  it.each([['KubeletTracing'], ['KubeletPodResources'], ['InTreePlugin<Vendor>Unregister'], ['CSIMigration<Vendor>']])('does not know %s', (name) => {
    expect(KNOWN_GATES.has(name)).toBe(false);
  });
});

describe('resolveFeatureGates', () => {
  it('returns every gate at its default when nothing is requested', () => {
    const r = resolveFeatureGates({});
    expect(r.problems).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(Object.keys(r.gates)).toHaveLength(KNOWN_GATES.size);
    expect(r.gates.GracefulNodeShutdown).toBe(true);
    expect(r.gates.NodeSwap).toBe(false);
  });

  it.each<[Record<string, boolean>, Record<string, boolean>]>([
    [{ NodeSwap: true, GracefulNodeShutdown: false }, { NodeSwap: true, GracefulNodeShutdown: false, QOSReserved: false }],
    [{ AllAlpha: true }, { QOSReserved: true, MemoryQoS: true, NodeSwap: false, AllBeta: false, GracefulNodeShutdown: true }],
    [{ AllAlpha: true, QOSReserved: false }, { QOSReserved: false, MemoryQoS: true }],
    [{ AllAlpha: false }, { WindowsHostNetwork: false, QOSReserved: false }],
    [{ AllBeta: true }, { NodeSwap: true, EventedPLEG: true, QOSReserved: false }],
    [{ AllBeta: false, AgentTracing: true }, { GracefulNodeShutdown: false, AgentTracing: true, WindowsHostNetwork: true }],
  ])('resolves %j', (requested, expected) => {
    const r = resolveFeatureGates(requested);
    expect(r.problems).toEqual([]);
    expect(r.gates).toMatchObject(expected);
  });

  it('reports unknown gates', () => {
    const r = resolveFeatureGates({ NoSuchGate: true, KubeletTracing: false, NodeSwap: true });
    expect(r.problems).toEqual(['unrecognized feature gate: NoSuchGate', 'unrecognized feature gate: KubeletTracing']);
    expect(r.gates.NodeSwap).toBe(true);
  });

  const withLocked: ReadonlyMap<string, GateSpec> = new Map<string, GateSpec>([
    ['Locked', { name: 'Locked', stage: 'GA', default: true, lockToDefault: true }],
    ['Old', { name: 'Old', stage: 'DEPRECATED', default: false }],
    ['Beta', { name: 'Beta', stage: 'BETA', default: true }],
  ]);

  it('refuses to flip a locked gate', () => {
    expect(resolveFeatureGates({ Locked: false }, withLocked)).toEqual({
      gates: { Locked: true, Old: false, Beta: true },
      problems: ['cannot set feature gate Locked to false, feature is locked to true'],
      warnings: [],
    });
  });

  it('warns when GA or deprecated gates are set', () => {
    expect(resolveFeatureGates({ Locked: true, Old: true }, withLocked)).toEqual({
      gates: { Locked: true, Old: true, Beta: true },
      problems: [],
      warnings: [
        'Setting GA feature gate Locked=true. It will be removed in a future release.',
        'Setting deprecated feature gate Old=true. It will be removed in a future release.',
      ],
    });
  });
});

describe('gateHelpLines', () => {
  it('prints one sorted line per alpha and beta gate', () => {
    const lines = gateHelpLines();
    expect(lines).toHaveLength([...KNOWN_GATES.values()].filter((g) => g.stage === 'ALPHA' || g.stage === 'BETA').length);
    expect(lines.some((l) => l.startsWith('SeccompDefault='))).toBe(false);
    expect(lines.slice(0, 3)).toEqual([
      'APIListChunking=true|false (BETA - default=true)',
      'APIPriorityAndFairness=true|false (BETA - default=true)',
      'APIResponseCompression=true|false (BETA - default=true)',
    ]);
    expect(lines).toContain('AllAlpha=true|false (ALPHA - default=false)');
    expect(lines).toContain('WindowsHostNetwork=true|false (ALPHA - default=true)');
    expect(lines.at(-1)).toBe('WindowsHostNetwork=true|false (ALPHA - default=true)');
    expect(lines.indexOf('InTreePluginPortworxUnregister=true|false (ALPHA - default=false)')).toBeLessThan(
      lines.indexOf('InTreePluginvSphereUnregister=true|false (ALPHA - default=false)'),
    );
    expect(lines.indexOf('KMSv2=true|false (BETA - default=true)')).toBeLessThan(lines.indexOf('KMSv2KDF=true|false (BETA - default=false)'));
  });

  it('leaves out GA and deprecated gates', () => {
    const known = new Map<string, GateSpec>([
      ['B', { name: 'B', stage: 'GA', default: true, lockToDefault: true }],
      ['A', { name: 'A', stage: 'ALPHA', default: false }],
      ['C', { name: 'C', stage: 'DEPRECATED', default: false }],
    ]);
    expect(gateHelpLines(known)).toEqual(['A=true|false (ALPHA - default=false)']);
  });
});

describe('FeatureGates', () => {
  it('answers from the effective values', () => {
    const gates = new FeatureGates(resolveFeatureGates({ NodeSwap: true }).gates);
    expect(gates.enabled('NodeSwap')).toBe(true);
    expect(gates.enabled('QOSReserved')).toBe(false);
    expect(gates.enabled('GracefulNodeShutdown')).toBe(true);
  });

  it('falls back to defaults for gates missing from the map', () => {
    expect(new FeatureGates({}).enabled('MemoryManager')).toBe(true);
  });

  it('throws on an unknown gate name', () => {
    expect(() => new FeatureGates({}).enabled('Bogus')).toThrow(AgentError);
    expect(() => new FeatureGates({}).enabled('Bogus')).toThrow('unknown feature gate "Bogus" queried');
  });
});
