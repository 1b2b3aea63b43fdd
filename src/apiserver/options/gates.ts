// The feature gates platform-apiserver knows, with the spec's stages and
// defaults (§9). One list: parsing, --help and the docs derive from it.
import { FlagError } from '../../errors.js';

export type ApiGate = 'ClusterTrustBundle' | 'WatchList' | 'APIResponseCompression' | 'APIListChunking';

export interface ApiGateSpec {
  readonly name: ApiGate;
  readonly stage: 'ALPHA' | 'BETA';
  readonly default: boolean;
}

export const API_GATES: readonly ApiGateSpec[] = [
  { name: 'APIListChunking', stage: 'BETA', default: true },
  { name: 'APIResponseCompression', stage: 'BETA', default: true },
  { name: 'ClusterTrustBundle', stage: 'ALPHA', default: false },
  { name: 'WatchList', stage: 'ALPHA', default: false },
];

export type ApiFeatureGates = Readonly<Record<ApiGate, boolean>>;

/**
 * The effective gates: defaults overlaid with what `--feature-gates` set.
 * Pure; throws a FlagError naming the first unknown gate (as component-base's
 * "unrecognized feature gate: X").
 */
export function resolveGates(given: Readonly<Record<string, boolean>>): ApiFeatureGates {
  const out = Object.fromEntries(API_GATES.map((g) => [g.name, g.default])) as Record<ApiGate, boolean>;
  for (const [name, value] of Object.entries(given)) {
    const spec = API_GATES.find((g) => g.name === name);
    if (spec === undefined) throw new FlagError(`invalid argument for "--feature-gates" flag: unrecognized feature gate: ${name}`, { flag: '--feature-gates' });
    out[spec.name] = value;
  }
  return out;
}

/** `Name=true|false (STAGE - default=x)` lines, as --help lists gates. */
export function apiGateHelpLines(): string[] {
  return API_GATES.map((g) => `${g.name}=true|false (${g.stage} - default=${String(g.default)})`);
}
